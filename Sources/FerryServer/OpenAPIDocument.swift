import Foundation

/// The API description (docs/openapi.yaml), shipped as a resource next to the executable.
enum OpenAPIDocument {
    /// The document's text, or nil when the resource bundle was not deployed with the binary.
    static let text: String? = {
        let name = "Ferry_FerryServer.resources/openapi.yaml"
        var places = [Bundle.main.bundleURL.appendingPathComponent(name)]
        if let executable = Bundle.main.executableURL {
            places.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        for url in places {
            if let text = try? String(contentsOf: url, encoding: .utf8) { return text }
        }
        return nil
    }()
}
