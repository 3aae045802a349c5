#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryServer
import FerryStore
import FerryTestSupport
import Foundation
import Testing

/// `ferry app create|update --attribution-model`, `ferry attribution refit`, `model` and `report`, run as the real
/// executable.
@Suite("The ferry command: attribution models", .serialized, .takesTurns)
struct AttributionCommandLineTests {
    @Test func theModelIsChosenRefittedAndShown() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("learn.sqlite").path
        let database = "sqlite:" + path

        let created = try await FerryProcess.run(["app", "create", "--database", database, "--name", "Demo", "--domain", "go.demo.test",
                                                  "--attribution-model", "learned"])
        #expect(created.status == 0, "\(created.stderr)")
        let appID = created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        func model() async throws -> AttributionSettings.Model? {
            let store = try SQLiteStore(path: path)
            let model = try await store.app(id: appID)?.attribution.model
            try await store.close()
            return model
        }
        #expect(try await model() == .learned)
        #expect(try await FerryProcess.run(["app", "update", "--database", database, appID, "--attribution-model", "fixed"]).status == 0)
        #expect(try await model() == .fixed)
        let refused = try await FerryProcess.run(["app", "update", "--database", database, appID, "--attribution-model", "maybe"])
        #expect(refused.status == 64 && refused.stderr.contains("attribution-model") && refused.stdout.isEmpty)
        #expect(try await model() == .fixed)
        #expect(try await FerryProcess.run(["app", "update", "--database", database, appID, "--attribution-model", "learned"]).status == 0)

        // Nothing to show or fit yet.
        let none = try await FerryProcess.run(["attribution", "model", "--database", database, "--app", appID])
        #expect(none.status == 1 && none.stderr.contains("no model was fitted") && none.stdout.isEmpty)
        let empty = try await FerryProcess.run(["attribution", "refit", "--database", database, "--app", appID])
        #expect(empty.status == 1 && empty.stderr.contains("no observations") && empty.stdout.isEmpty)
        let unknown = try await FerryProcess.run(["attribution", "refit", "--database", database, "--app", "app_nope"])
        #expect(unknown.status == 1 && unknown.stderr.contains("no app with id"))

        // Three observations of this hour: a refit now is version 1, the next version 2.
        do {
            let store = try SQLiteStore(path: path)
            for n in 0..<3 {
                let at = Date().addingTimeInterval(-Double(n) * 600)
                let install = InstallEvidence(addressHash: "h\(n)", networkHash: "n\(n)", signals: iPhoneSignals, at: at)
                let click = ClickEvidence(clickID: "clk_\(n)", linkID: "lnk_1", createdAt: at.addingTimeInterval(-300), addressHash: "h\(n)", networkHash: "n\(n)")
                let observation = LearningObservation(install: install, candidates: CandidateSet(clicks: [click], clicksInWindow: 10, sameAddressClicks: 1,
                                                                                                 sameNetworkClicks: 1),
                                                      window: 86_400, label: n == 0 ? .click(click) : .unlabelled).anonymised()
                try await store.recordObservation(AttributionObservationRecord(appID: appID, environment: .live, observedAt: at, observation: observation))
            }
            try await store.close()
        }
        let refit = try await FerryProcess.run(["attribution", "refit", "--database", database, "--app", appID])
        #expect(refit.status == 0, "\(refit.stderr)")
        #expect(refit.stdout == "1\n")
        #expect(try await FerryProcess.run(["attribution", "refit", "--database", database, "--app", appID, "--environment", "live"]).stdout == "2\n")
        let test = try await FerryProcess.run(["attribution", "refit", "--database", database, "--app", appID, "--environment", "test"])
        #expect(test.status == 1 && test.stderr.contains("(test)"))

        let shown = try await FerryProcess.run(["attribution", "model", "--database", database, "--app", appID])
        #expect(shown.status == 0, "\(shown.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        #expect(json["version"] as? Int == 2 && json["answersWithIt"] as? Bool == true)
        let summary = try #require(json["summary"] as? [String: Any])
        #expect(summary["observations"] as? Int == 3 && summary["labelled"] as? Int == 1 && summary["unlabelled"] as? Int == 2)
        #expect((summary["delayQuantiles"] as? [Any])?.count == 5)
        #expect((summary["clickedShare"] as? Double).map { $0 > 0 && $0 < 1 } == true)

        // The report: the active version, what was read, the labelled install answered again without its token.
        let chart = directory.appendingPathComponent("calibration.svg").path
        let report = try await FerryProcess.run(["attribution", "report", "--database", database, "--app", appID, "--svg", chart])
        #expect(report.status == 0, "\(report.stderr)")
        #expect(report.stdout.hasPrefix("Attribution model of \(appID) (live): answers with the learned model; version 2, fitted "))
        #expect(report.stdout.contains("— labelled 1, organic 0, unlabelled 2") && report.stdout.contains("Accuracy on labelled installs at the app's default"))
        #expect(report.stdout.contains("Parameters") && report.stdout.contains("Versions") && report.stdout.contains("superseded"))
        let svg = try String(contentsOfFile: chart, encoding: .utf8)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.hasSuffix("</svg>"))
        let reportJSON = try await FerryProcess.run(["attribution", "report", "--database", database, "--app", appID, "--json", "--env", "live"])
        let reported = try #require(try JSONSerialization.jsonObject(with: Data(reportJSON.stdout.utf8)) as? [String: Any])
        let evaluation = try #require(reported["evaluation"] as? [String: Any])
        #expect((evaluation["overall"] as? [String: Any])?["labelled"] as? Int == 1)
        #expect((evaluation["segments"] as? [String: Any])?.keys.sorted() == ["household"])
        #expect((reported["active"] as? [String: Any])?["version"] as? Int == 2)
        // Bad input: no observations to read, an unknown app, a file that cannot be written.
        let zero = try await FerryProcess.run(["attribution", "report", "--database", database, "--app", appID, "--observations", "0"])
        #expect(zero.status == 64 && zero.stderr.contains("--observations") && zero.stdout.isEmpty)
        let nobody = try await FerryProcess.run(["attribution", "report", "--database", database, "--app", "app_nope"])
        #expect(nobody.status == 1 && nobody.stderr.contains("no app with id"))
        let unwritable = try await FerryProcess.run(["attribution", "report", "--database", database, "--app", appID, "--svg",
                                                     directory.appendingPathComponent("missing/chart.svg").path])
        #expect(unwritable.status == 1 && unwritable.stderr.contains("cannot write") && unwritable.stdout.isEmpty)
    }
}
#endif
