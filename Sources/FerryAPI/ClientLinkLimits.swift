/// The bounds of a link made in the app with a publishable key (a share link), smaller than a secret key's: the
/// server refuses anything beyond them, and FerryKit checks them before sending.
package enum ClientLinkLimits {
    /// Most params.
    package static let maxParams = 20
    /// Longest param name, in characters.
    package static let maxParamKeyLength = 64
    /// Longest param value, in characters.
    package static let maxParamValueLength = 512
    /// Largest params dictionary, names and values together, in characters.
    package static let maxParamsTotalLength = 4096
    /// Longest campaign, referrer, UTM field and App Store token, in characters.
    package static let maxTextLength = 128
    /// Longest preview title, in characters.
    package static let maxTitleLength = 200
    /// Longest preview description, in characters.
    package static let maxDescriptionLength = 500
    /// Longest URL (destination, deep links, fallbacks, preview image), in bytes.
    package static let maxURLLength = 2048
    /// Largest request body.
    package static let maxBodyBytes = 16 * 1024
}

/// URL schemes that run code or read local data in a browser: never a destination, never an app link, never sent.
package enum URLSchemes {
    /// The schemes, lowercase.
    package static let forbidden: Set<String> = [
        "javascript", "data", "vbscript", "file", "about", "blob", "filesystem", "view-source", "chrome", "chrome-extension",
        "resource", "jar", "ms-its", "mhtml",
    ]
}
