import Foundation
#if canImport(os)
import os
#endif

/// FerryKit's log: one level, one handler, safe from any thread.
struct FerryLogger: Sendable {
    let level: FerryLogLevel
    let handler: @Sendable (FerryLogLevel, String) -> Void

    init(level: FerryLogLevel, handler: (@Sendable (FerryLogLevel, String) -> Void)?) {
        self.level = level
        self.handler = handler ?? FerryLogger.systemHandler
    }

    func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    func log(_ messageLevel: FerryLogLevel, _ message: @autoclosure () -> String) {
        guard messageLevel != .none, messageLevel >= level else { return }
        handler(messageLevel, message())
    }

    #if canImport(os)
    static let systemHandler: @Sendable (FerryLogLevel, String) -> Void = { level, message in
        let logger = Logger(subsystem: "dev.ferry.sdk", category: "FerryKit")
        switch level {
        case .debug: logger.debug("\(message, privacy: .public)")
        case .info: logger.info("\(message, privacy: .public)")
        case .warning: logger.warning("\(message, privacy: .public)")
        case .error, .none: logger.error("\(message, privacy: .public)")
        }
    }
    #else
    static let systemHandler: @Sendable (FerryLogLevel, String) -> Void = { level, message in
        FileHandle.standardError.write(Data("[FerryKit] \(level): \(message)\n".utf8))
    }
    #endif
}
