#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryAPI
import FerryCore
import Foundation
import HTTPTypes
import Hummingbird

/// `GET /v1/links/{id}/qr`: a QR code of a link's short URL, as SVG or PNG (secret key).
struct QRCodeController: Sendable {
    let links: LinkEditor
    let authenticator: KeyAuthenticator

    /// Sizes a code may be asked for, in pixels.
    static let sizes = 64...2048
    static let defaultSize = 512

    func register(on router: Router<FerryRequestContext>) {
        router.get("\(FerryRoutes.links)/:id/qr") { request, context in try await qr(request, id: context.parameters.get("id") ?? "") }
    }

    func qr(_ request: Request, id: String) async throws -> Response {
        let auth = try await authenticator.authenticate(request, requiring: .secret, scope: .linksRead)
        let link = try await links.find(id, app: auth.app, environment: auth.key.environment)
        let options = try Self.options(of: request)
        return try Self.response(link, app: auth.app, png: options.png, pixels: options.size, level: options.level, disposition: "inline")
    }

    /// A QR code of a link's short URL (on its app, `app`) as an image response; `disposition` is `inline` or
    /// `attachment`.
    static func response(_ link: Link, app: App, png: Bool, pixels: Int, level: QRCode.ErrorCorrection, disposition: String) throws -> Response {
        let code: QRCode
        do { code = try QRCode(text: link.shortURL(in: app), errorCorrection: level) } catch {
            throw APIError(.tooLong, message: error.description)
        }
        var headers = HTTPFields()
        headers[.cacheControl] = "private, max-age=300"
        headers[.contentDisposition] = "\(disposition); filename=\"\(link.slug).\(png ? "png" : "svg")\""
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        if png {
            headers[.contentType] = "image/png"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: code.png(pixels: pixels))))
        }
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: code.svg(pixels: pixels))))
    }

    /// `format` (svg, the default, or png), `size` (pixels, 64–2048, default 512) and `ecc` (L, M — the default —, Q
    /// or H: how much of the code may be damaged or covered and still read, from 7% to 30%).
    static func options(of request: Request) throws -> (png: Bool, size: Int, level: QRCode.ErrorCorrection) {
        let query = request.uri.queryParameters
        var png = false
        if let format = query["format"].map(String.init), !format.isEmpty {
            switch format.lowercased() {
            case "svg": png = false
            case "png": png = true
            default: throw APIError(.invalidField, message: "format must be svg or png", field: "format")
            }
        }
        var size = defaultSize
        if let text = query["size"].map(String.init), !text.isEmpty {
            guard text.utf8.count <= 5, let value = Int(text), sizes.contains(value) else {
                throw APIError(.invalidField, message: "size must be a whole number of pixels from \(sizes.lowerBound) to \(sizes.upperBound)", field: "size")
            }
            size = value
        }
        var level = QRCode.ErrorCorrection.medium
        if let text = query["ecc"].map(String.init), !text.isEmpty {
            guard let value = QRCode.ErrorCorrection(rawValue: text.uppercased()), text.count == 1 else {
                throw APIError(.invalidField, message: "ecc must be L, M, Q or H", field: "ecc")
            }
            level = value
        }
        return (png, size, level)
    }
}
#endif
