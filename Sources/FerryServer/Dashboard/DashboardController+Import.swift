#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import FerryStore
import Foundation
import HTTPTypes
import Hummingbird

/// Importing a Firebase Dynamic Links export (the Google Takeout CSV) from the dashboard: the file is sent with the
/// form, the import runs in the background (`ImportJobs`), and its page refreshes itself until it is done, then says
/// what was made, what was there already and what was skipped and why, as `ferry import firebase` does.
extension DashboardController {
    /// Largest file the form takes: some 100,000 links of an export.
    static let importMaxBytes = 32 * 1024 * 1024
    /// Skipped rows shown per reason on the page (all of them are in the CSV it offers).
    static let skippedShown = 5

    func importPage(_ viewer: Viewer, error: String? = nil, status: HTTPResponse.Status? = nil) -> Response {
        let running = imports.running(appID: viewer.app.id, environment: viewer.environment)
        let body = render("importForm", [
            "csrf": viewer.csrf, "maxMiB": Self.importMaxBytes / (1024 * 1024), "environment": viewer.environment.rawValue,
            "domains": viewer.app.domains.map { ["name": $0] }, "running": running.map { ["id": $0.id, "fileName": $0.fileName] } as Any,
        ])
        return html(status: status ?? (error == nil ? .ok : .badRequest), title: "Import links", body: body, viewer: viewer, error: error)
    }

    /// Starts an import of the form's file, and sends the browser to its page.
    func startImport(_ viewer: Viewer, _ form: QueryString, _ parts: [MultipartForm.Part]) -> Response {
        guard let file = parts.first(where: { $0.name == "file" && $0.filename != nil }), !file.body.isEmpty else {
            return importPage(viewer, error: "Choose the CSV file Firebase exported (Google Takeout) to import.")
        }
        guard let text = file.text else {
            return importPage(viewer, error: "The file is not UTF-8 text: export it again as CSV.")
        }
        let chosen = (form.value(of: "domain") ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard chosen.isEmpty || viewer.app.domains.contains(chosen) else {
            return importPage(viewer, error: "Domain: choose one of the app's link domains, or each short link's own.")
        }
        let options = FirebaseLinkImport.Options(domain: chosen.isEmpty ? nil : chosen)
        let app = viewer.app, environment = viewer.environment, actor = viewer.actor
        // A file that is no export is refused now, before anything runs.
        do { _ = try FirebaseLinkImport.rows(csv: text, app: app, options: options) } catch {
            return importPage(viewer, error: "The file cannot be imported: \(error.message)")
        }
        let dryRun = form.value(of: "dryRun") == "1"
        let importer = FirebaseImporter(admin: admin)
        let name = String((file.filename ?? "").split(whereSeparator: { $0 == "/" || $0 == "\\" }).last ?? "export.csv").prefix(200)
        guard let job = imports.start(appID: app.id, environment: environment, startedBy: actor.label ?? (actor.kind == .key ? "a key" : actor.id), fileName: String(name), dryRun: dryRun, work: { progress in
            try await importer.run(csv: text, app: app, environment: environment, options: options, dryRun: dryRun, by: actor, progress: progress)
        }) else {
            return importPage(viewer, error: "An import of this app's \(environment.rawValue) links is running: wait for it to finish.", status: .conflict)
        }
        return redirect("/dashboard/import/\(job.id)")
    }

    func importJob(_ context: FerryRequestContext, _ viewer: Viewer) throws -> ImportJobs.Job {
        let id = context.parameters.get("id") ?? ""
        guard id.utf8.count <= 64, let job = imports.job(id, appID: viewer.app.id, environment: viewer.environment) else {
            throw Detour(response: html(status: .notFound, title: "Not found", body: render("importGone", [:]), viewer: viewer))
        }
        return job
    }

    /// An import's page. While the import runs the page is sent as it goes: a line with a progress bar every half
    /// second (the page's stylesheet shows the latest), then what the import did, without a script or a timed reload.
    func importJobPage(_ viewer: Viewer, _ job: ImportJobs.Job) -> Response {
        let values: [String: Any] = [
            "fileName": job.fileName, "startedBy": job.startedBy, "dryRun": job.dryRun, "running": job.running,
            "started": AttributionReport.date(job.startedAt), "steps": Self.stepsMark, "result": Self.resultMark,
        ]
        let title = job.running ? "Importing…" : "Import"
        let body = render("importJob", values)
        guard job.running else {
            return html(title: title, body: body.replacingOccurrences(of: Self.stepsMark, with: "")
                .replacingOccurrences(of: Self.resultMark, with: importResult(job)), viewer: viewer)
        }
        let appID = viewer.app.id, environment = viewer.environment
        return html(title: title, body: body, viewer: viewer) { page in
            ResponseBody { writer in
                let (start, rest) = Self.split(page, at: Self.stepsMark)
                let (between, end) = Self.split(rest, at: Self.resultMark)
                try await writer.write(ByteBuffer(string: start))
                var current = job
                var shown: (Int, Int)?
                while true {
                    if shown.map({ $0 != (current.done, current.total) }) ?? true {
                        try await writer.write(ByteBuffer(string: importStep(current)))
                        shown = (current.done, current.total)
                    }
                    guard current.running else { break }
                    try await Task.sleep(for: .milliseconds(500))
                    // Forgotten meanwhile (a crowded node): the page ends with what it last saw.
                    guard let next = imports.job(current.id, appID: appID, environment: environment) else { break }
                    current = next
                }
                try await writer.write(ByteBuffer(string: between + importResult(current) + end))
                try await writer.finish(nil)
            }
        }
    }

    static let stepsMark = "<!--import-steps-->"
    static let resultMark = "<!--import-result-->"

    /// The text before and after the first `mark` (all of it before, when there is none).
    static func split(_ text: String, at mark: String) -> (String, String) {
        guard let range = text.range(of: mark) else { return (text, "") }
        return (String(text[..<range.lowerBound]), String(text[range.upperBound...]))
    }

    func importStep(_ job: ImportJobs.Job) -> String {
        render("importStep", ["counted": job.total > 0, "done": job.done, "total": job.total, "percent": job.total == 0 ? 0 : job.done * 100 / job.total])
    }

    /// What a finished import did (nothing while it runs).
    func importResult(_ job: ImportJobs.Job) -> String {
        guard !job.running else { return "" }
        var values: [String: Any] = ["id": job.id, "dryRun": job.dryRun, "failure": job.failure as Any]
        if let summary = job.summary {
            values["summary"] = [
                "rows": summary.rows, "created": summary.created, "alreadyThere": summary.alreadyThere, "skipped": summary.skippedCount,
                "hasSkipped": summary.skippedCount > 0,
                "reasons": summary.skippedByCode.map { code, rows in
                    ["code": code, "count": rows.count, "more": max(0, rows.count - Self.skippedShown), "hasMore": rows.count > Self.skippedShown,
                     "rows": rows.prefix(Self.skippedShown).map { ["line": $0.line, "message": FirebaseLinkImport.printable($0.message)] as [String: Any] }] as [String: Any]
                },
                "notes": summary.notes.sorted { $0.key < $1.key }.map { ["note": FirebaseLinkImport.printable($0.key), "count": $0.value] as [String: Any] },
                "hasNotes": !summary.notes.isEmpty,
            ] as [String: Any]
        }
        return render("importResult", values)
    }

    /// Every row an import skipped, as CSV (`line,short_link,code,message`).
    func importSkippedCSV(_ job: ImportJobs.Job) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/csv; charset=utf-8"
        headers[.contentDisposition] = "attachment; filename=\"skipped-rows.csv\""
        headers[.cacheControl] = "no-store"
        headers[EdgeController.contentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: job.summary?.skippedReport ?? "")))
    }
}
#endif
