import FerryCore
import Foundation

// `FERRY_BENCHMARKS=1 swift run -c release UserAgentBench [--bots FILE]... [--people FILE]...`
//
// How well the classifier tells people from bots on user agents nobody here wrote, and what a classification costs.
// Each FILE is one user agent per line (scripts/user-agent-corpora.py writes them from public packages): every line of
// a --bots file should be taken for a bot, no line of a --people file should. Prints the share recognised per file,
// the misses (up to 20 per file), and the mean time per classification over all the lines.

var bots: [String] = [], people: [String] = [], verbose = false
var arguments = Array(CommandLine.arguments.dropFirst())
while !arguments.isEmpty {
    let flag = arguments.removeFirst()
    switch flag {
    case "--bots", "--people":
        guard !arguments.isEmpty else { fatalError("\(flag) takes a file") }
        (flag == "--bots" ? { bots.append($0) } : { people.append($0) })(arguments.removeFirst())
    case "--verbose": verbose = true
    default:
        print("usage: UserAgentBench [--bots FILE]... [--people FILE]... [--verbose]")
        exit(flag == "--help" ? 0 : 2)
    }
}

func lines(_ path: String) -> [String] {
    guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { fatalError("cannot read \(path)") }
    return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("#") }
}

let classifier = UserAgentClassifier()
var everything: [String] = []
print("corpus                                            lines   as expected   share")
for (path, wantBot) in bots.map({ ($0, true) }) + people.map({ ($0, false) }) {
    let agents = lines(path)
    everything += agents
    let misses = agents.filter { classifier.classify($0).isBot != wantBot }
    let share = agents.isEmpty ? Double.nan : Double(agents.count - misses.count) / Double(agents.count)
    let name = (path as NSString).lastPathComponent
    print(String(format: "%-48@ %6d   %11d   %.2f%%", name as NSString, agents.count, agents.count - misses.count, share * 100))
    for miss in misses.prefix(verbose ? misses.count : 20) {
        let info = classifier.classify(miss)
        print("    missed (\(info.platform.rawValue)\(info.botName.map { " " + $0 } ?? "")): \(miss.prefix(160))")
    }
}

// The cost: every line classified, ten rounds, after one to warm up.
guard !everything.isEmpty else { exit(0) }
var sink = 0
for agent in everything { sink &+= classifier.classify(agent).isBot ? 1 : 0 }
let rounds = 10
let start = ContinuousClock.now
for _ in 0..<rounds {
    for agent in everything { sink &+= classifier.classify(agent).isBot ? 1 : 0 }
}
let elapsed = ContinuousClock.now - start
let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
print(String(format: "mean cost per classification: %.0f ns over %d user agents × %d rounds (checksum %d)",
             nanoseconds / Double(everything.count * rounds), everything.count, rounds, sink))
