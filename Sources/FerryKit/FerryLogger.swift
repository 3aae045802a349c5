import Foundation
#if canImport(os)
import os
#endif

/// FerryKit's log: one level, one category, safe from any thread.
///
/// Without a ``FerryOptions/logHandler``, lines go to the unified log through `os.Logger` (subsystem
/// ``subsystem``, a category per area), where the values a message marks private (URLs, install ids, user ids, link
/// ids and slugs) show as `<private>` unless a debugger is attached; where there is no `os` (Linux), they go to
/// standard error. A `logHandler` gets every line whole.
struct FerryLogger: Sendable {
    /// The unified log's subsystem for FerryKit's lines.
    static let subsystem = "dev.ferry.sdk"

    /// The area a line is about, the unified log's category.
    enum Category: String, Sendable, CaseIterable {
        /// Configuration, launches, links the app is opened with.
        case general
        /// The deferred deep link check and the pasteboard's click token.
        case deferred
        /// Events: handlers and the upload queue.
        case events
        /// Requests to the server and their retries.
        case network
        /// Users, install ids and key validation.
        case users
        /// Share links made in the app.
        case links
    }

    /// Where a line goes besides the level check: tests pass one to see each message with its privacy.
    typealias Recorder = @Sendable (FerryLogLevel, Category, FerryLogMessage) -> Void

    let level: FerryLogLevel
    let category: Category
    private let handler: (@Sendable (FerryLogLevel, String) -> Void)?
    private let recorder: Recorder?

    init(level: FerryLogLevel, handler: (@Sendable (FerryLogLevel, String) -> Void)?, recorder: Recorder? = nil, category: Category = .general) {
        self.level = level
        self.handler = handler
        self.recorder = recorder
        self.category = category
    }

    /// The same log, writing in `category`.
    func category(_ category: Category) -> FerryLogger {
        FerryLogger(level: level, handler: handler, recorder: recorder, category: category)
    }

    func debug(_ message: @autoclosure () -> FerryLogMessage) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> FerryLogMessage) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> FerryLogMessage) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> FerryLogMessage) { log(.error, message()) }

    /// A line of FerryKit's own text, with nothing in it to hide (an error's message, say).
    @_disfavoredOverload func debug(_ text: @autoclosure () -> String) { log(.debug, FerryLogMessage(public: text())) }
    @_disfavoredOverload func info(_ text: @autoclosure () -> String) { log(.info, FerryLogMessage(public: text())) }
    @_disfavoredOverload func warning(_ text: @autoclosure () -> String) { log(.warning, FerryLogMessage(public: text())) }
    @_disfavoredOverload func error(_ text: @autoclosure () -> String) { log(.error, FerryLogMessage(public: text())) }

    func log(_ messageLevel: FerryLogLevel, _ message: @autoclosure () -> FerryLogMessage) {
        guard messageLevel != .none, messageLevel >= level else { return }
        let message = message()
        recorder?(messageLevel, category, message)
        if let handler {
            handler(messageLevel, message.text)
        } else {
            Self.system(messageLevel, category, message)
        }
    }

    #if canImport(os)
    /// The unified log.
    static func system(_ level: FerryLogLevel, _ category: Category, _ message: FerryLogMessage) {
        let type: OSLogType = switch level {
        case .debug: .debug
        case .info: .info
        case .warning: .default
        case .error, .none: .error
        }
        message.write(to: Logger(subsystem: subsystem, category: category.rawValue), type: type)
    }
    #else
    /// Standard error.
    static func system(_ level: FerryLogLevel, _ category: Category, _ message: FerryLogMessage) {
        FileHandle.standardError.write(Data("[FerryKit] \(level): \(message.text)\n".utf8))
    }
    #endif
}

/// Whether a value in a log line may be shown to whoever reads the device's log.
enum FerryLogPrivacy: Sendable {
    /// Shown: FerryKit's own words, counts, codes.
    case `public`
    /// Hidden in the unified log (`<private>`): URLs, install ids, user ids, link ids and slugs, anything from outside.
    case `private`
}

/// A log line: FerryKit's literal text, and the values put in it, each public or private. Interpolated text is
/// private unless marked `privacy: .public`; numbers are public.
///
/// ```swift
/// logger.info("opened by link \(link.url.absoluteString) after \(attempts) tries")   // the URL is private
/// ```
struct FerryLogMessage: ExpressibleByStringInterpolation, Sendable {
    /// The line in runs of the same privacy, public first: public, private, public, … (an odd number, at least one).
    let runs: [String]

    init(public text: String) { runs = [text] }

    init(stringLiteral value: String) { runs = [value] }

    init(stringInterpolation: Interpolation) {
        // Closed on a public run, even an empty one.
        runs = stringInterpolation.runs.count.isMultiple(of: 2) ? stringInterpolation.runs + [""] : stringInterpolation.runs
    }

    /// The whole line, private values included: what a `logHandler` gets.
    var text: String { runs.joined() }

    /// The line as the unified log shows it without a debugger: each private run as `<private>`.
    var redacted: String {
        runs.enumerated().map { $0.offset.isMultiple(of: 2) ? $0.element : "<private>" }.joined()
    }

    /// The private values, in order.
    var privateValues: [String] { runs.enumerated().filter { !$0.offset.isMultiple(of: 2) }.map(\.element) }

    struct Interpolation: StringInterpolationProtocol {
        private(set) var runs = [""]

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func append(_ text: String, _ privacy: FerryLogPrivacy) {
            guard !text.isEmpty else { return }
            let isPrivate = privacy == .private
            if runs.count.isMultiple(of: 2) == isPrivate {
                runs[runs.count - 1] += text
            } else {
                runs.append(text)
            }
        }

        mutating func appendLiteral(_ literal: String) { append(literal, .public) }

        mutating func appendInterpolation(_ value: some CustomStringConvertible, privacy: FerryLogPrivacy = .private) {
            append(value.description, privacy)
        }

        mutating func appendInterpolation(_ value: some BinaryInteger) { append(value.description, .public) }

        mutating func appendInterpolation(_ value: Double) { append(value.description, .public) }
    }
}

#if canImport(os)
extension FerryLogMessage {
    /// Writes the line to `logger`, each private run as a private value. `OSLogMessage` is made at compile time, so
    /// there is one template per number of private runs; from the fourth on, the rest of the line goes into the
    /// third private value.
    func write(to logger: Logger, type: OSLogType) {
        let runs = runs.count > 7 ? Array(runs.prefix(5)) + [runs.dropFirst(5).joined(), ""] : runs
        switch runs.count {
        case 1:
            logger.log(level: type, "\(runs[0], privacy: .public)")
        case 3:
            logger.log(level: type, "\(runs[0], privacy: .public)\(runs[1], privacy: .private)\(runs[2], privacy: .public)")
        case 5:
            logger.log(level: type, "\(runs[0], privacy: .public)\(runs[1], privacy: .private)\(runs[2], privacy: .public)\(runs[3], privacy: .private)\(runs[4], privacy: .public)")
        default:
            logger.log(level: type, "\(runs[0], privacy: .public)\(runs[1], privacy: .private)\(runs[2], privacy: .public)\(runs[3], privacy: .private)\(runs[4], privacy: .public)\(runs[5], privacy: .private)\(runs[6], privacy: .public)")
        }
    }
}
#endif
