#if os(macOS) || os(Linux)  // the server's platforms: see Package.swift
import FerryCore
import Foundation

/// Files shipped in `Ferry_FerryServer.resources` next to the executable (`Bundle.module` would stop the process
/// when the folder is missing; a binary deployed without it still runs, and says what is missing where it matters).
enum ServerResources {
    /// A resource's text, or nil when the resource bundle was not deployed with the binary.
    static func text(named file: String) -> String? {
        let name = "Ferry_FerryServer.resources/" + file
        var places = [Bundle.main.bundleURL.appendingPathComponent(name)]
        if let executable = Bundle.main.executableURL {
            places.append(executable.deletingLastPathComponent().appendingPathComponent(name))
        }
        for url in places {
            if let text = try? String(contentsOf: url, encoding: .utf8) { return text }
        }
        return nil
    }
}

/// The API description (docs/openapi.yaml).
enum OpenAPIDocument {
    /// The document's text, or nil when the resource bundle was not deployed with the binary.
    static let text: String? = ServerResources.text(named: "openapi.yaml")
}

extension PublicSuffixList {
    /// The list shipped with this binary (`public_suffix_list.dat`, from publicsuffix.org under the Mozilla Public
    /// License 2.0), read once; nil when the resource bundle was not deployed, and then only development hosts and
    /// IP addresses can be added as link domains.
    package static let bundled: PublicSuffixList? = ServerResources.text(named: "public_suffix_list.dat").map(PublicSuffixList.init(text:))
}

/// The common passwords a person may not choose (`common-passwords.txt`, made by scripts/make-common-passwords.py),
/// read once; empty when the resource bundle was not deployed, and then the other password rules still hold.
package enum CommonPasswords {
    package static let bundled: Set<String> = Set(
        (ServerResources.text(named: "common-passwords.txt") ?? "").split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("#") }.map { $0.lowercased() })
}
#endif
