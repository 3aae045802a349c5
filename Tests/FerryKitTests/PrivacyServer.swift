@testable import FerryKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A server stand-in that answers every route FerryKit calls, for the tests of what FerryKit sends.
enum PrivacyServer {
    /// The route name of a request, or nil for a path FerryKit should never ask.
    static func route(of path: String) -> String? {
        switch path {
        case FerryRoutes.sdkValidate: "validate"
        case FerryRoutes.attributionMatch: "match"
        case FerryRoutes.resolveURL: "resolveURL"
        case _ where path.hasPrefix(FerryRoutes.resolveURL + "/"): "resolve"
        case FerryRoutes.attributionUser: "identify"
        case FerryRoutes.events: "events"
        case FerryRoutes.links: "links"
        default: nil
        }
    }

    /// A "copy to open" token, as the link's page copies it.
    struct TokenOnThePasteboard: ClickTokenProvider {
        func clickToken() async -> String? { "ferry:clk_0123456789abcdefghijkl" }
    }

    /// A transport that answers every route FerryKit calls.
    static func make() -> ScriptedTransport {
        ScriptedTransport { request in
            let path = request.url?.path ?? ""
            switch route(of: path) {
            case "validate": return .encoded(Kit.validation())
            case "match": return .encoded(DeferredDeepLinkTests.matched)
            case "resolve", "resolveURL": return .encoded(ResolveResponse(link: Kit.linkData()))
            case "identify":
                let body = try Kit.body(request, as: AttributeUserRequest.self)
                return .encoded(AttributeUserResponse(userID: body.userID, attributed: true, matchType: .probabilistic, confidence: 0.93, link: Kit.linkData()))
            case "events": return .encoded(EventsResponse(accepted: try Kit.body(request, as: EventsRequest.self).events.count))
            case "links": return .encoded(LinkBuilderTests.answer(for: try Kit.body(request, as: CreateLinkRequest.self)), status: 201)
            default: return .json(404, #"{"error":{"code":"not_found","message":"no route","field":null}}"#)
            }
        }
    }
}
