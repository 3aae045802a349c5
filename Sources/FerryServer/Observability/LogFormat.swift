#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import Logging
import Synchronization
import Tracing

/// How the server writes its log: `text` (swift-log's lines, for a person at a terminal) or `json` (one object a
/// line, for a log pipeline), chosen by `FERRY_LOG_FORMAT`.
package enum LogFormat: String, Sendable, CaseIterable {
    case text, json

    /// The handlers of the process's logging system in this format, each with the request's and the trace's
    /// metadata. Bootstrapped once, by `ferry serve`.
    package func bootstrap() {
        let provider = RequestLogScope.metadataProvider
        switch self {
        case .text:
            LoggingSystem.bootstrap({ label, provider in StreamLogHandler.standardError(label: label, metadataProvider: provider) },
                                    metadataProvider: provider)
        case .json:
            let output = JSONLogOutput.standardError
            LoggingSystem.bootstrap({ label, provider in JSONLogHandler(label: label, output: output, metadataProvider: provider) },
                                    metadataProvider: provider)
        }
    }
}

/// What a request's log lines carry: its id (the framework's), and its app once its key is known. Bound to the
/// request's task by `ObservationMiddleware`; anything the request's task logs, through any logger, carries it.
package final class RequestLogScope: Sendable {
    @TaskLocal package static var current: RequestLogScope?

    let id: String
    private let app = Mutex<String?>(nil)

    init(id: String) { self.id = id }

    /// The app the request turned out to be for (set when its key is found).
    var appID: String? {
        get { app.withLock { $0 } }
        set { app.withLock { $0 = newValue } }
    }

    /// Notes the app of the request under way, if any.
    static func noteApp(_ appID: String) {
        current?.appID = appID
    }

    /// `request_id`, `app_id`, and the current span's `trace_id` and `span_id`.
    static let metadataProvider = Logger.MetadataProvider {
        var metadata: Logger.Metadata = [:]
        if let scope = current {
            metadata["request_id"] = .string(scope.id)
            if let app = scope.appID { metadata["app_id"] = .string(app) }
        }
        if FerryTracing.isEnabled, let span = ServiceContext.current?.spanContextIDs {
            metadata["trace_id"] = .string(span.trace)
            metadata["span_id"] = .string(span.span)
        }
        return metadata
    }
}

extension ServiceContext {
    /// The W3C ids of the span this context carries, from its `traceparent` (as the propagator would write it).
    var spanContextIDs: (trace: String, span: String)? {
        var carrier = TraceparentCarrier()
        InstrumentationSystem.instrument.inject(self, into: &carrier, using: TraceparentCarrier.Injector())
        return carrier.ids
    }
}

/// Collects what an instrument injects, to read the `traceparent` field back.
struct TraceparentCarrier {
    var traceparent: String?

    struct Injector: Tracing.Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout TraceparentCarrier) {
            if key.lowercased() == "traceparent" { carrier.traceparent = value }
        }
    }

    /// `00-<trace>-<span>-<flags>`.
    var ids: (trace: String, span: String)? {
        guard let parts = traceparent?.split(separator: "-"), parts.count == 4, parts[1].count == 32, parts[2].count == 16 else { return nil }
        return (String(parts[1]), String(parts[2]))
    }
}

/// Where JSON log lines go: whole lines, one writer at a time.
package final class JSONLogOutput: Sendable {
    private let lock = Mutex<Void>(())
    private let write: @Sendable (Data) -> Void

    package init(write: @escaping @Sendable (Data) -> Void) { self.write = write }

    static let standardError = JSONLogOutput { FileHandle.standardError.write($0) }

    func emit(_ line: Data) { lock.withLock { _ in write(line) } }
}

/// A log handler that writes one JSON object a line: `time` (RFC 3339, UTC, milliseconds), `level`, `logger`,
/// `message`, then the metadata (`request_id`, `trace_id`, `span_id`, `app_id` where known, and what the line
/// adds). Values that must never reach a log are withheld by `LogRedaction`.
package struct JSONLogHandler: LogHandler {
    package var logLevel: Logger.Level = .info
    package var metadata: Logger.Metadata = [:]
    package var metadataProvider: Logger.MetadataProvider?
    let label: String
    let output: JSONLogOutput

    package init(label: String, output: JSONLogOutput, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.output = output
        self.metadataProvider = metadataProvider
    }

    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    package func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        output.emit(Self.line(time: Date(), level: event.level, label: label, message: event.message.description, metadata: merged))
    }

    /// One line: the fixed fields first, then the metadata by name, redacted.
    static func line(time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) -> Data {
        var text = "{\"time\":\(LogRedaction.quoted(timeFormat.format(time)))"
        text += ",\"level\":\(LogRedaction.quoted(level.rawValue)),\"logger\":\(LogRedaction.quoted(label))"
        text += ",\"message\":\(LogRedaction.quoted(LogRedaction.scrub(message)))"
        for key in metadata.keys.sorted() where !["time", "level", "logger", "message"].contains(key) {
            guard let value = metadata[key], let shown = LogRedaction.value(key: key, value) else { continue }
            text += ",\(LogRedaction.quoted(key)):\(shown)"
        }
        text += "}\n"
        return Data(text.utf8)
    }

    private static let timeFormat = Date.ISO8601FormatStyle(includingFractionalSeconds: true, timeZone: TimeZone(identifier: "UTC")!)
}

/// What a log line may not hold: an API key or signing secret (masked wherever it appears), a client's full address
/// (the last part of an IPv4 address, the last 80 bits of an IPv6 one are cut), a user's id, a password.
enum LogRedaction {
    /// Metadata names whose values are never written.
    static let withheld: Set<String> = ["key", "apikey", "api_key", "secret", "password", "authorization", "token", "user", "userid", "user_id",
                                        "email"]
    /// Metadata names whose values are addresses, written cut to their network.
    static let addresses: Set<String> = ["address", "ip", "client", "peer", "remote", "forwarded"]

    /// The JSON of a metadata value, or nil when it is withheld.
    static func value(key: String, _ value: Logger.Metadata.Value) -> String? {
        let name = key.lowercased()
        if withheld.contains(name) || name.hasSuffix("_key") || name.hasSuffix("secret") { return nil }
        if addresses.contains(name) || name.hasSuffix("_address") || name.hasSuffix(".addr") {
            return quoted(cutAddress("\(value)"))
        }
        switch value {
        case .string(let text): return quoted(scrub(text))
        case .stringConvertible(let convertible): return quoted(scrub(convertible.description))
        case .array(let items): return "[" + items.map { quoted(scrub("\($0)")) }.joined(separator: ",") + "]"
        case .dictionary(let entries):
            let fields = entries.keys.sorted().compactMap { name in entries[name].flatMap { v in self.value(key: name, v).map { "\(quoted(name)):\($0)" } } }
            return "{" + fields.joined(separator: ",") + "}"
        }
    }

    /// An address cut to its network: `203.0.113.0/24`, `2001:db8:1::/48`.
    static func cutAddress(_ text: String) -> String {
        guard let address = IPAddress(text.trimmingCharacters(in: .whitespaces)) else { return "[withheld]" }
        return address.networkPrefix
    }

    /// Text with every API key and webhook signing secret masked but its first characters.
    static func scrub(_ text: String) -> String {
        guard text.contains("_live_") || text.contains("_test_") || text.contains("whsec_") else { return text }
        var out = ""
        var rest = Substring(text)
        while let range = rest.firstMatch(of: secretPattern)?.range {
            out += rest[rest.startIndex..<range.lowerBound]
            out += rest[range].prefix(8) + "…[withheld]"
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// A JSON string literal of `text`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                let value = scalar.value
                let control = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
                guard control else {
                    out.unicodeScalars.append(scalar)
                    continue
                }
                let hex = String(value, radix: 16)
                out += "\\u"
                out += String(repeating: "0", count: 4 - hex.count)
                out += hex
            }
        }
        return out + "\""
    }

    nonisolated(unsafe) static let secretPattern = /f[ks]_(?:live|test)_[A-Za-z0-9]+|whsec_[A-Za-z0-9]+/
}
#endif
