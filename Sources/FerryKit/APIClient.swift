import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends FerryKit's requests: the key in `Authorization`, JSON in FerryAPI's conventions, retries with backoff for
/// failures that may pass (no answer, timeouts, 5xx), a 429 again after the wait its `Retry-After` asks for when that
/// wait fits (see ``RetryPolicy``), never another 4xx, and every failure as a ``FerryError``.
struct APIClient: Sendable {
    let baseURL: URL
    let apiKey: String
    let transport: any FerryTransport
    let retryPolicy: RetryPolicy
    let timeout: TimeInterval
    let userAgent: String
    let logger: FerryLogger
    var sleep: @Sendable (TimeInterval) async throws -> Void = { seconds in
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
    }
    /// False while the app has turned FerryKit off: nothing is sent, not even the retry of a request under way.
    var isEnabled: @Sendable () -> Bool = { true }

    func get<Answer: Decodable>(
        _ path: String, query: [URLQueryItem] = [], headers: [String: String] = [:], deadline: Deadline? = nil, as type: Answer.Type
    ) async throws(FerryError) -> Answer {
        try await send(method: "GET", path: path, query: query, body: nil, headers: headers, deadline: deadline, as: type)
    }

    func post<Body: Encodable, Answer: Decodable>(_ path: String, body: Body, as type: Answer.Type) async throws(FerryError) -> Answer {
        let data: Data
        do { data = try FerryJSON.makeEncoder().encode(body) } catch {
            throw FerryError(.invalidArgument, "the request body for \(path) could not be encoded", underlying: error)
        }
        return try await send(method: "POST", path: path, query: [], body: data, as: type)
    }

    func makeRequest(method: String, path: String, query: [URLQueryItem], body: Data?, headers: [String: String] = [:]) throws(FerryError) -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw FerryError(.invalidConfiguration, "the server URL \(baseURL) cannot be used")
        }
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = basePath + path
        components.queryItems = query.isEmpty ? nil : query
        // `+` in a query value would read as a space on the server.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw FerryError(.invalidArgument, "\(path) does not make a valid URL") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        request.setValue(userAgent, forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        return request
    }

    /// Sends the request, trying again under the retry policy. With a `deadline`, no wait (a back-off or a 429's
    /// `Retry-After`) goes past it: the last failure is thrown instead.
    func send<Answer: Decodable>(
        method: String, path: String, query: [URLQueryItem], body: Data?, headers: [String: String] = [:], deadline: Deadline? = nil,
        as type: Answer.Type
    ) async throws(FerryError) -> Answer {
        let request = try makeRequest(method: method, path: path, query: query, body: body, headers: headers)
        var attempt = 0
        while true {
            attempt += 1
            let failure: FerryError
            var wait: TimeInterval?
            do {
                if Task.isCancelled { throw CancellationError() }
                guard isEnabled() else { throw FerryError(.disabled, "\(method) \(path) was not sent: FerryKit is turned off (Ferry.setEnabled(false))") }
                logger.debug("\(method) \(path) (try \(attempt))")
                let (data, response) = try await transport.send(request)
                switch response.statusCode {
                case 200..<300:
                    do { return try FerryJSON.makeDecoder().decode(Answer.self, from: data) } catch {
                        throw FerryError(.invalidResponse, "the server's answer to \(method) \(path) could not be read: \(error)",
                                         httpStatus: response.statusCode, underlying: error)
                    }
                case 429:
                    // Tried again only after the wait the server asked for, and only when it fits in the budget: the
                    // policy's longest wait, or with a deadline what is left of it (checked below with the back-off).
                    let error = Self.error(response, data: data, method: method, path: path)
                    guard let seconds = Self.retryAfter(response).map({ TimeInterval($0) }), attempt < retryPolicy.maxAttempts,
                          deadline != nil || seconds <= retryPolicy.maxDelay else { throw error }
                    failure = error
                    wait = seconds
                case 300..<500:
                    // Not retried: a 4xx will not change, and the API never redirects.
                    throw Self.error(response, data: data, method: method, path: path)
                default:
                    failure = Self.error(response, data: data, method: method, path: path)
                }
            } catch let error as FerryError {
                throw error
            } catch is CancellationError {
                throw FerryError(.cancelled, "\(method) \(path) was cancelled")
            } catch let error as URLError where error.code == .cancelled {
                throw FerryError(.cancelled, "\(method) \(path) was cancelled", underlying: error)
            } catch let error as URLError where error.code == .timedOut {
                failure = FerryError(.timeout, "the server did not answer \(method) \(path) within \(timeout) s", underlying: error)
            } catch {
                failure = FerryError(.network, "the server could not be reached for \(method) \(path): \(error.localizedDescription)", underlying: error)
            }
            guard attempt < retryPolicy.maxAttempts else {
                logger.warning(failure.message)
                throw failure
            }
            let delay = wait ?? retryPolicy.delay(afterAttempt: attempt)
            if let deadline, delay >= deadline.remaining {
                logger.info("\(failure.message); no time is left to try again")
                throw failure
            }
            logger.debug("\(failure.message); trying again in \(String(format: "%.2f", delay)) s")
            do { try await sleep(delay) } catch { throw FerryError(.cancelled, "\(method) \(path) was cancelled", underlying: error) }
        }
    }

    /// The error for an HTTP error answer, with the server's code, message and field when its body is Ferry's error
    /// body, and the wait a 429's `Retry-After` asks for.
    static func error(_ response: HTTPURLResponse, data: Data, method: String, path: String) -> FerryError {
        let status = response.statusCode
        let body = try? FerryJSON.makeDecoder().decode(ErrorResponse.self, from: data)
        let code: FerryError.Code = switch status {
        case 401: .unauthorized
        case 403: .forbidden
        case 404, 410: .notFound
        case 429: .rateLimited
        case 400..<500: .badRequest
        case 300..<400: .invalidResponse
        default: .server
        }
        var message = "\(method) \(path) failed with HTTP \(status)"
        if let detail = body?.error { message += ": \(detail.message)" }
        if status == 401 { message += " (is the key right, and not revoked?)" }
        if status == 429, let seconds = retryAfter(response) {
            message += " (try again in \(seconds) s)"
        }
        return FerryError(code, message, httpStatus: status, serverCode: body?.error.code, field: body?.error.field)
    }

    /// The seconds a `Retry-After` header asks for (its HTTP-date form is not read), or nil.
    static func retryAfter(_ response: HTTPURLResponse) -> Int? {
        response.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}

/// A moment by the device's monotonic clock (uptime, which a change of the wall clock does not move) before which
/// something must be done.
struct Deadline: Sendable {
    let end: TimeInterval

    /// The deadline `seconds` from now.
    init(in seconds: TimeInterval) { end = Self.uptime() + seconds }

    /// Seconds left, 0 once it has passed.
    var remaining: TimeInterval { max(0, end - Self.uptime()) }

    static func uptime() -> TimeInterval { ProcessInfo.processInfo.systemUptime }
}
