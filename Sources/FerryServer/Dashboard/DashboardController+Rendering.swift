#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// Rendering pages and redirects.
extension DashboardController {
    // MARK: Rendering

    func status(_ link: Link) -> String {
        switch link.status(at: admin.now()) {
        case .active: "active"
        case .expired: "expired"
        case .disabled: "disabled"
        }
    }

    static func day(_ date: Date) -> String { StatsRange.text(ofDay: StatsRollup.day(of: date)) }

    func render(_ template: String, _ values: [String: Any]) -> String {
        library.render(Self.renderable(values), withTemplate: template) ?? ""
    }

    /// Values as the templates must see them. The template engine writes an optional that holds nothing as `nil`
    /// (and takes it as true in a section): such a value is left out, so that `{{x}}` writes nothing and `{{#x}}` is
    /// false; an optional that holds something is unwrapped. Dictionaries and arrays are cleaned all the way down.
    static func renderable(_ values: [String: Any]) -> [String: Any] {
        values.compactMapValues(renderableValue)
    }

    private static func renderableValue(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let held = mirror.children.first?.value else { return nil }
            return renderableValue(held)
        }
        switch value {
        case let dictionary as [String: Any]: return renderable(dictionary)
        case let array as [Any]: return array.compactMap(renderableValue)
        default: return value
        }
    }

    /// The campaign a link is filed under: its own, else its UTM campaign (the list and the link's page say the same).
    static func campaign(of link: Link) -> String? {
        link.campaign ?? link.utm.campaign
    }

    func html(status: HTTPResponse.Status = .ok, title: String, body: String, viewer: Viewer?, error: String? = nil, notice: String? = nil,
              imagesFrom: String? = nil, streaming: (@Sendable (String) -> ResponseBody)? = nil) -> Response {
        var values: [String: Any] = ["title": title, "body": body, "signedIn": viewer != nil]
        if let error { values["error"] = error }
        if let notice { values["notice"] = notice }
        if let viewer {
            values["appName"] = viewer.app.name
            values["environment"] = viewer.environment.rawValue
            values["csrf"] = viewer.csrf
            values["mayManage"] = viewer.may(.manageSettings) && !viewer.memberOfNone
            values["mayManageMembers"] = viewer.person != nil && viewer.may(.manageMembers) && !viewer.memberOfNone
            if let person = viewer.person {
                values["person"] = true
                values["roleName"] = viewer.memberOfNone ? nil : viewer.role.rawValue
                let choices: [[String: Any]] = person.apps.flatMap { entry in
                    APIEnvironment.allCases.map { environment in
                        ["value": "\(entry.app.id).\(environment.rawValue)", "label": "\(entry.app.name) (\(environment.rawValue))",
                         "selected": entry.app.id == viewer.app.id && environment == viewer.environment] as [String: Any]
                    }
                }
                if !choices.isEmpty { values["switcher"] = ["choices": choices] }
            }
        }
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[EdgeController.contentSecurityPolicy] = imagesFrom.map { Self.contentSecurityPolicy(imagesFrom: $0) } ?? Self.contentSecurityPolicy
        headers[EdgeController.contentTypeOptions] = "nosniff"
        headers[EdgeController.frameOptions] = "DENY"
        headers[EdgeController.referrerPolicy] = "same-origin"
        let page = render("layout", values)
        guard let streaming else { return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page))) }
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"  // a proxy in front passes each part on as it comes
        return Response(status: status, headers: headers, body: streaming(page))
    }

    func redirect(_ location: String, clearing: Bool = false) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        var response = Response(status: .seeOther, headers: headers)
        if clearing {
            response.setCookie(Cookie(name: DashboardSessions.cookie, value: "", maxAge: 0, path: "/dashboard", httpOnly: true, sameSite: .strict))
        }
        return response
    }
}
#endif
