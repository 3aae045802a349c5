#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// The system's cryptographically secure random bytes, fetched 4 KiB at a time and handed out eight at a time.
///
/// `SystemRandomNumberGenerator` makes one system call per 64-bit draw, and a click id takes two: on the edge that
/// was a system call per click. The pool refills with one call per 512 draws; what it hands out is the kernel's
/// generator's output, each byte handed out once.
final class RandomPool: Sendable {
    private struct State {
        var words: [UInt64]
        var next: Int
    }

    static let wordsPerRefill = 512
    private let state: Mutex<State>

    init() {
        state = Mutex(State(words: [UInt64](repeating: 0, count: Self.wordsPerRefill), next: Self.wordsPerRefill))
    }

    /// The next 64 random bits.
    func next() -> UInt64 {
        state.withLock { state in
            if state.next == state.words.count {
                state.words.withUnsafeMutableBytes(Self.fill)
                state.next = 0
            }
            defer { state.next += 1 }
            return state.words[state.next]
        }
    }

    /// Fills a buffer from the kernel's generator.
    static func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        #if canImport(Darwin)
        arc4random_buf(buffer.baseAddress, buffer.count)
        #else
        // /dev/urandom is the kernel's generator, as getrandom(2) is (which the C library module does not show).
        var filled = 0
        let device = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        if device >= 0 {
            defer { close(device) }
            while filled < buffer.count {
                let count = read(device, buffer.baseAddress! + filled, buffer.count - filled)
                if count > 0 {
                    filled += count
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
        }
        // No device (a bare chroot): the standard library's generator, eight bytes per draw.
        var generator = SystemRandomNumberGenerator()
        while filled < buffer.count {
            let count = min(8, buffer.count - filled)
            withUnsafeBytes(of: generator.next()) { buffer.baseAddress!.advanced(by: filled).copyMemory(from: $0.baseAddress!, byteCount: count) }
            filled += count
        }
        #endif
    }

    /// A generator drawing from this pool.
    var generator: Generator { Generator(pool: self) }

    /// A `RandomNumberGenerator` over a pool.
    struct Generator: RandomNumberGenerator {
        let pool: RandomPool
        mutating func next() -> UInt64 { pool.next() }
    }
}
#endif
