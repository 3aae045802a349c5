import Foundation

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

    #if canImport(Darwin)
    /// The unified log, through `NSLog` (Foundation only).
    static let systemHandler: @Sendable (FerryLogLevel, String) -> Void = { level, message in
        NSLog("[FerryKit] %@: %@", "\(level)" as NSString, message as NSString)
    }
    #else
    /// Standard error.
    static let systemHandler: @Sendable (FerryLogLevel, String) -> Void = { level, message in
        FileHandle.standardError.write(Data("[FerryKit] \(level): \(message)\n".utf8))
    }
    #endif
}
