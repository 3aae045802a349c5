import FerryAPI

extension LinkDebugReport {
    /// The debug page `?d=1` on a link answers with: a table of the visitors with where each goes, the kind of
    /// answer and why, then the warnings. Everything shown is escaped; the page carries `noindex` and no script.
    package func render() -> String {
        let head = """
        <meta name="robots" content="noindex, nofollow">
        <style>main{max-width:1100px;text-align:left}table{border-collapse:collapse;width:100%;font-size:14px;background:#fff}\
        th,td{border-bottom:1px solid #e5e5ea;padding:8px;vertical-align:top;text-align:left}td.url{word-break:break-all;max-width:320px}\
        li{margin:6px 0;line-height:1.4}li.warning strong{color:#b3261e}li.info strong{color:#555}code{word-break:break-all}</style>

        """
        var body = "<h1>Debug view</h1>\n"
        body += "<p>Where <a href=\"\(HTML.attributeURL(url))\" rel=\"nofollow\">\(HTML.escape(url))</a> sends each visitor, as Ferry answers it now. "
        body += "Opening this page is not a click: nothing is recorded.</p>\n"
        body += "<p>Status: <strong id=\"ferry-status\">\(HTML.escape(Self.name(of: status)))</strong>. "
        body += "Destination: <code>\(HTML.escape(destination))</code>.</p>\n"
        body += "<table id=\"ferry-cases\"><thead><tr><th>Visitor</th><th>Answer</th><th>Goes to</th><th>Why</th></tr></thead><tbody>\n"
        for debugCase in cases {
            body += "<tr id=\"case-\(HTML.escape(debugCase.id))\"><td>\(HTML.escape(debugCase.label))</td>"
            body += "<td>\(HTML.escape(Self.describe(debugCase.answer, status: debugCase.httpStatus)))</td>"
            let target = debugCase.url.map { "<a href=\"\(HTML.attributeURL($0))\" rel=\"nofollow\">\(HTML.escape($0))</a>" } ?? "—"
            body += "<td class=\"url\">\(target)</td><td>\(HTML.escape(debugCase.reason))"
            if let open = debugCase.app { body += Self.describe(open) }
            body += "</td></tr>\n"
        }
        body += "</tbody></table>\n<h2>Warnings</h2>\n"
        if warnings.isEmpty {
            body += "<p id=\"ferry-warnings\">None: every visitor gets what the link intends.</p>\n"
        } else {
            body += "<ul id=\"ferry-warnings\">\n"
            for warning in warnings {
                body += "<li class=\"\(HTML.escape(warning.severity))\" data-code=\"\(HTML.escape(warning.code))\">"
                body += "<strong>\(HTML.escape(warning.code))</strong>: \(HTML.escape(warning.message))</li>\n"
            }
            body += "</ul>\n"
        }
        body += "<p>The same report as JSON: <code>GET /v1/links/\(HTML.escape(linkID))/debug</code> with a secret key.</p>"
        return HTML.document(title: "Debug view: \(url)", head: head, body: body)
    }

    /// The kind of answer, for people.
    static func describe(_ answer: LinkDebugAnswer, status: Int?) -> String {
        switch answer {
        case .app: "Opens the app"
        case .redirect: "\(status ?? 302) redirect"
        case .interstitial: "\(status ?? 200) page, then on"
        case .preview: "\(status ?? 200) preview page"
        case .status: "\(status ?? 404) page"
        }
    }

    /// What the app is handed, as a line under the reason.
    static func describe(_ open: LinkDebugAppOpen) -> String {
        var line = "<br><small>The app is handed: deep link <code>\(HTML.escape(open.deepLink))</code>"
        if !open.params.isEmpty {
            let params = open.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            line += ", params <code>\(HTML.escape(params))</code>"
        }
        if let version = open.iosMinimumVersion { line += ", iosMinimumVersion <code>\(HTML.escape(version))</code>" }
        if let code = open.androidMinimumVersionCode { line += ", androidMinimumVersionCode <code>\(code)</code>" }
        return line + ".</small>"
    }
}
