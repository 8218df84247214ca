import Foundation

// `tollgate-bench seed|attribution|sdk …`: the measuring half of `make bench`
// (Benchmarks/scripts/bench.sh drives wrk, nginx and the bare responder).
exit(await BenchCommand.run(Array(CommandLine.arguments.dropFirst())))
