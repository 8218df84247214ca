import Foundation
import TollgateAPI
import TollgateDomain
import TollgateHTTP
import TollgatePersistence
import TollgateSupport

/// The body of `POST /v1/admin/imports` read as it arrives: NDJSON split into lines as
/// chunks come in, each line handed to the import at once (stored in batches), so millions of
/// lines never sit in memory. The caller is checked before the first byte is stored.
final class ProfileImportUpload: BodySink {
  /// What the upload did.
  enum Reading: Sendable {
    case summary(ProfileImportSummary)
    case problem(DomainError)
    /// The caller could not be checked (the route answers its error).
    case unauthorized
  }

  /// Beyond this the answer is 413 (a million profiles of 1 KiB fit).
  static let maximumBytes = 1 << 30

  private var session: ProfileImportService.Session?
  private var problem: Reading?

  init(request: Request, auth: Authenticator, imports: ProfileImportService) {
    // Only the import itself starts one (a POST under the path is not a route).
    guard request.path == ProfileImportController.path || request.path == ProfileImportController.path + "/" else {
      problem = .problem(DomainError.notFound(.routeNotFound, "No route POST \(request.path)."))
      return
    }
    let media = request.header("content-type")?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
      .lowercased()
    guard ["application/x-ndjson", "application/jsonl", "application/json-seq", "text/plain"].contains(media ?? "")
    else {
      problem = .problem(
        DomainError(.unsupportedMediaType, "Send the profiles as application/x-ndjson: one JSON object a line."))
      return
    }
    guard let caller = try? auth.caller(for: request, needs: Permission.integrationsWrite) else {
      problem = .unauthorized
      return
    }
    do {
      session = try imports.begin(appId: caller.appId, source: "ndjson", by: caller.actor)
    } catch {
      problem = .problem(DomainError(.internalError, "The import could not start: \(error)"))
    }
  }

  func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    session?.feed(chunk: bytes)
  }

  func finish() -> any Sendable { reading() }

  func reading() -> Reading {
    if let problem { return problem }
    guard let session else { return .unauthorized }
    do {
      return .summary(try session.finish())
    } catch let error as DomainError {
      return .problem(error)
    } catch let error as StoreError {
      return .problem(DomainError(.storageUnavailable, "Storing the profiles failed: \(error)"))
    } catch {
      return .problem(DomainError(.internalError, "\(error)"))
    }
  }
}
