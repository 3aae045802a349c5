#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the thread that writes clicks is scheduled against the threads that answer them.
package enum ClickWriterPriority: Sendable, Equatable {
    /// Runs only when the processor would otherwise be idle (Linux's `SCHED_IDLE`): a thread answering a click takes
    /// the processor from it the moment it wakes. Elsewhere, the lowest nice value.
    case idle
    /// Runs at this nice value above the process's (0…19): a share of the processor under load, shrinking with it.
    case nice(Int32)

    /// Parses `idle` or a nice value from 0 to 19.
    package init?(_ text: String) {
        if text.lowercased() == "idle" { self = .idle; return }
        guard let value = Int32(text), (0...19).contains(value) else { return nil }
        self = .nice(value)
    }

    /// Applies this priority to the calling thread; false (with `errno` set) when the system refuses.
    func applyToCurrentThread() -> Bool {
        switch self {
        case .nice(let value):
            return setpriority(PRIO_PROCESS_WHO, 0, min(19, max(0, value))) == 0
        case .idle:
            #if os(Linux)
            var parameters = sched_param()
            parameters.sched_priority = 0
            return sched_setscheduler(0, linuxSchedIdle, &parameters) == 0
            #else
            return setpriority(PRIO_PROCESS_WHO, 0, 19) == 0
            #endif
        }
    }
}

#if os(Linux)
/// Linux's `SCHED_IDLE` policy, which the C library declares only for GNU sources.
let linuxSchedIdle: Int32 = 5
#endif

#if canImport(Glibc)
/// `setpriority`'s `which` for a process (a thread, on Linux), as the C library spells its type.
let PRIO_PROCESS_WHO = __priority_which_t(PRIO_PROCESS.rawValue)
#else
let PRIO_PROCESS_WHO = PRIO_PROCESS
#endif
#endif
