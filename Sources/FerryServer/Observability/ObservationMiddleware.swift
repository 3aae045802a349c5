#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird
import Tracing

/// The first middleware of every request the router answers: counts and times it by route group, binds its log
/// scope (`request_id`, `app_id`), and, when tracing is on, makes its server span, a child of the caller's
/// `traceparent` when it sent one. The span says the method, the route (`/v1/links/{id}`, never the path's values),
/// and the status; nothing of the query, the headers or the client's address.
struct ObservationMiddleware: RouterMiddleware {
    typealias Context = FerryRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let group = RouteGroup.of(path: request.uri.path)
        do {
            let response: Response
            if group == .edge {
                response = try await next(request, context)
            } else {
                response = try await RequestLogScope.$current.withValue(RequestLogScope(id: context.id)) {
                    if FerryTracing.isEnabled { return try await Self.serverSpan(request, context: context, group: group, next: next) }
                    return try await next(request, context)
                }
            }
            metrics.requestAnswered(group, status: response.status.code, nanoseconds: (ContinuousClock.now - start).wholeNanoseconds)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            if let answer = error as? APIError, answer.body.error.code == .databaseUnavailable { metrics.databaseUnavailable.increment() }
            metrics.requestAnswered(group, status: status, nanoseconds: (ContinuousClock.now - start).wholeNanoseconds)
            throw error
        }
    }

    /// The request inside a server span.
    static func serverSpan(_ request: Request, context: Context, group: RouteGroup,
                           next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = ServiceContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let method = MethodGuard.methods.contains(request.method) ? request.method.rawValue : "other"
        return try await withSpan("\(method) \(group.label)", context: parent, ofKind: .server) { span in
            span.attributes["http.request.method"] = method
            span.attributes["ferry.route_group"] = group.label
            do {
                let response = try await next(request, context)
                if let route = context.endpointPath {
                    span.operationName = "\(method) \(route)"
                    span.attributes["http.route"] = route
                }
                span.attributes["http.response.status_code"] = Int(response.status.code)
                if response.status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
                return response
            } catch {
                let status = (error as? any HTTPResponseError)?.status.code ?? 500
                if let route = context.endpointPath {
                    span.operationName = "\(method) \(route)"
                    span.attributes["http.route"] = route
                }
                span.attributes["http.response.status_code"] = Int(status)
                if status >= 500 {
                    span.setStatus(SpanStatus(code: .error))
                    span.recordError(error)
                }
                throw error
            }
        }
    }
}

/// Reads the W3C trace context (`traceparent`, `tracestate`) from a request's fields.
struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        guard let name = HTTPField.Name(key) else { return nil }
        return fields[name]
    }
}

/// Writes the trace context into an outgoing request's fields (a webhook delivery's).
struct HeaderListInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [(String, String)]) {
        carrier.append((key, value))
    }
}
#endif
