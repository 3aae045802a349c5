import Foundation
import Testing

/// A suite trait that lets only so many of the run's test cases run at once; the others wait for a turn before they
/// start.
///
/// Swift Testing starts every test of the run together. A thousand tests that each start a server, a database and
/// clients, on a two-core machine, left each one so little of the machine that deadlines measured in seconds (a
/// database statement's, a client's, a DNS lookup's) passed under load alone, in tests that pass on their own. Taking
/// turns, the run is as fast as before and each test meets its deadlines. The width is six test cases per core, or
/// `FERRY_TEST_WIDTH` when it is set.
public struct TakesTurns: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        // A suite nested in another that takes turns applies the trait twice; the case takes one turn.
        guard testCase != nil, !Turns.held else { return try await function() }
        await Turns.shared.begin()
        do {
            try await Turns.$held.withValue(true) { try await function() }
        } catch {
            await Turns.shared.end()
            throw error
        }
        await Turns.shared.end()
    }
}

extension Trait where Self == TakesTurns {
    /// Runs the suite's test cases only when one of the run's turns is free (see `TakesTurns`).
    public static var takesTurns: Self { TakesTurns() }
}

/// The run's turns: how many test cases run, and those waiting, first come first served.
actor Turns {
    static let shared = Turns(width: width(ProcessInfo.processInfo.environment["FERRY_TEST_WIDTH"]))
    @TaskLocal static var held = false

    let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = width }

    static func width(_ setting: String?) -> Int {
        if let setting, let width = Int(setting), width > 0 { return width }
        return 6 * max(1, ProcessInfo.processInfo.activeProcessorCount)
    }

    func begin() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func end() {
        // The turn passes to the first waiting case as it is; `running` counts it still.
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
