#if os(macOS) || os(Linux)  // tests start programs on these only: tvOS and watchOS have no posix_spawn
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A program started by the tests, through `posix_spawn` directly.
///
/// Foundation's `Process` on Linux lists `/proc/self/fd` before each start and copies every entry's name in full,
/// reading past the end of the listing's buffer: with as many descriptors open as a test run holds (a thousand and
/// more), that crashes the whole run now and then. This starts the program without listing anything: the child
/// closes every descriptor above standard error itself.
public final class ChildProcess: @unchecked Sendable {
    /// Where the child's output goes.
    public enum Output: Sendable {
        /// Into a pipe, read by ``collect()``.
        case capture
        /// Nowhere.
        case discard
        /// Appended to this file.
        case file(String)
        /// Wherever standard output goes (standard error only).
        case standardOutput
    }

    /// The child's process id.
    public let processIdentifier: pid_t
    private let stdoutPipe: Int32?
    private let stderrPipe: Int32?
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments`, in `environment` (this process's when nil), reading the file
    /// `standardInput` (nothing when nil).
    public init(executable: String, arguments: [String], environment: [String: String]? = nil,
                standardOutput: Output = .capture, standardError: Output = .capture, standardInput: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, standardInput ?? "/dev/null", O_RDONLY, 0)

        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        func route(_ output: Output, to descriptor: Int32) throws -> Int32? {
            switch output {
            case .capture:
                var ends: [Int32] = [0, 0]
                // Close-on-exec from the start: a program another test starts meanwhile must not hold these open.
                guard Self.pipeClosingOnExec(&ends) == 0 else { throw Failure(description: "pipe failed: errno \(errno)") }
                posix_spawn_file_actions_adddup2(&actions, ends[1], descriptor)
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                return ends[0]
            case .discard:
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", O_WRONLY, 0)
                return nil
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, descriptor, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                return nil
            case .standardOutput:
                posix_spawn_file_actions_adddup2(&actions, 1, descriptor)
                return nil
            }
        }
        stdoutPipe = try route(standardOutput, to: 1)
        stderrPipe = try route(standardError, to: 2)
        #if os(Linux)
        // glibc (2.34 and later) has it, but declares it only for GNU sources: found at run time.
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        #endif

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let env = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, nil, argv, env)
        childEnds.forEach { close($0) }
        guard result == 0 else {
            parentEnds.forEach { close($0) }
            throw Failure(description: "cannot start \(executable): errno \(result)")
        }
        processIdentifier = pid
    }

    /// `pipe2(ends, O_CLOEXEC)`, which glibc declares only for GNU sources (found at run time), or `pipe` and `fcntl`.
    private static func pipeClosingOnExec(_ ends: inout [Int32]) -> Int32 {
        #if os(Linux)
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pipe2") {
            typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
            return ends.withUnsafeMutableBufferPointer { unsafeBitCast(symbol, to: Pipe2.self)($0.baseAddress!, O_CLOEXEC) }
        }
        #endif
        guard pipe(&ends) == 0 else { return -1 }
        _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        return 0
    }

    /// Runs a program to its end; its status and what it wrote.
    public static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                           standardError: Output = .capture, standardInput: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment, standardError: standardError,
                                     standardInput: standardInput)
        let (stdout, stderr) = child.collect()
        return (child.wait(), String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    /// Reads captured output to its end (both pipes at once, so that neither can fill and stop the child).
    public func collect() -> (stdout: Data, stderr: Data) {
        let errors = Box()
        let reader = stderrPipe.map { descriptor in
            let thread = Thread { errors.data = Self.readAll(descriptor); errors.done.signal() }
            thread.start()
            return thread
        }
        let output = stdoutPipe.map(Self.readAll) ?? Data()
        if reader != nil { errors.done.wait() }
        return (output, errors.data)
    }

    private final class Box: @unchecked Sendable {
        var data = Data()
        let done = DispatchSemaphore(value: 0)
    }

    private static func readAll(_ descriptor: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { data.append(contentsOf: buffer[0..<count]) } else if count < 0 && errno == EINTR { continue } else { break }
        }
        close(descriptor)
        return data
    }

    /// Waits for the child to end; its exit status, or the number of the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        if let status = lock.withLock({ status }) { return status }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) < 0 && errno == EINTR {}
        return record(raw)
    }

    /// Whether the child has not ended yet.
    public var isRunning: Bool {
        if lock.withLock({ status }) != nil { return false }
        var raw: Int32 = 0
        guard waitpid(processIdentifier, &raw, WNOHANG) == processIdentifier else { return true }
        record(raw)
        return false
    }

    @discardableResult
    private func record(_ raw: Int32) -> Int32 {
        let signal = raw & 0x7f
        let value = signal == 0 ? (raw >> 8) & 0xff : signal
        lock.withLock { status = value }
        return value
    }

    /// Sends a signal to the child.
    public func send(_ signal: Int32) {
        if isRunning { _ = kill(processIdentifier, signal) }
    }

    /// A failure to start a child.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }
}
#endif
