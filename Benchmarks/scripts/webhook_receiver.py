"""The scale benchmark's stand-in for an app's backend: answers every webhook delivery 204 and
appends its event type to a file, one line a delivery (counted by the report)."""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

port, log_path = int(sys.argv[1]), sys.argv[2]
log = open(log_path, "a", buffering=1)


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        log.write((self.headers.get("Tollgate-Event-Type") or "unknown") + "\n")
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", port), Receiver).serve_forever()
