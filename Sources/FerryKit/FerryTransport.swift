import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What carries FerryKit's requests to the server. The default is ``URLSessionTransport``; a test or an app
/// with its own networking stack passes another through ``FerryOptions/transport``.
public protocol FerryTransport: Sendable {
    /// Sends `request` and returns the body and the HTTP response, or throws when no answer came.
    /// An HTTP error status is an answer, not an error.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// ``FerryTransport`` over `URLSession`: an ephemeral session of its own (no cookies, no cache) unless given one.
public struct URLSessionTransport: FerryTransport {
    private let session: URLSession

    /// A transport over an ephemeral session with the given timeout per request, in seconds.
    public init(timeout: TimeInterval = 10) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = max(timeout, timeout * 3)
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// A transport over `session`.
    public init(session: URLSession) { self.session = session }

    /// Sends the request with `URLSession`.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw FerryError(.invalidResponse, "the answer to \(request.url?.path ?? "a request") was not HTTP")
        }
        return (data, http)
    }
}
