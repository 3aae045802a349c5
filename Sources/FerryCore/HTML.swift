import FerryAPI

/// HTML building blocks. Everything that reaches a page goes through `escape`.
package enum HTML {
    /// Escapes text for an element body or a double-quoted attribute.
    package static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "`": out += "&#96;"
            default:
                if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" { continue }
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// Escapes a URL for an `href`, `src`, `content` or refresh attribute; `#` instead when a browser would read it as a
    /// script or local-data URL (`javascript:`, `data:`, … in any case, disguised with spaces or control characters).
    /// Stored URLs are validated before they get here; this keeps a page safe whatever it is given.
    static func attributeURL(_ url: String) -> String {
        // Browsers ignore leading C0 controls and spaces and remove tabs and newlines anywhere in a URL, and `escape`
        // drops control characters: judge the scheme on what is left.
        let significant = String(String.UnicodeScalarView(url.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
        if let colon = significant.firstIndex(of: ":"), URLSchemes.forbidden.contains(significant[..<colon].lowercased()) {
            return "#"
        }
        return escape(url)
    }

    /// The Content-Security-Policy of every page Ferry serves: no inline script, scripts only from Ferry itself.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src https: http: data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    /// Where the interstitial's script is served (a path no slug can take).
    package static let interstitialScriptPath = "/.ferry/interstitial.js"

    /// Where the interstitial's script reports the device's signals for its click.
    package static let signalsPath = "/.ferry/signals"

    static let style = """
    body{font-family:-apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,sans-serif;margin:0;padding:48px 24px;\
    text-align:center;color:#1c1c1e;background:#f5f5f7}main{max-width:420px;margin:0 auto}\
    h1{font-size:22px;margin:0 0 12px}p{color:#555;line-height:1.5}img.preview{max-width:100%;border-radius:12px}\
    a.button{display:block;margin:12px 0;padding:14px;border-radius:12px;background:#0a84ff;color:#fff;text-decoration:none;font-weight:600}\
    a.secondary{background:#e5e5ea;color:#1c1c1e}
    """

    /// A whole page around a body.
    static func document(title: String, head: String = "", body: String, bodyAttributes: String = "") -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        \(head)<style>\(style)</style></head>
        <body\(bodyAttributes)><main>
        \(body)
        </main></body></html>
        """
    }
}

/// The page link-unfurling bots get: Open Graph and Twitter Card tags, and a plain link for any person who lands on it.
package struct PreviewPage: Sendable, Hashable {
    /// Preview title.
    package var title: String
    /// Preview description.
    package var description: String?
    /// Absolute image URL.
    package var imageURL: String?
    /// The short URL (`og:url`).
    package var shortURL: String
    /// Where people go (`link rel=canonical` and the visible link).
    package var destination: String
    /// The app's name (`og:site_name`).
    package var siteName: String

    /// Creates a preview page.
    package init(title: String, description: String?, imageURL: String?, shortURL: String, destination: String, siteName: String) {
        self.title = title
        self.description = description
        self.imageURL = imageURL
        self.shortURL = shortURL
        self.destination = destination
        self.siteName = siteName
    }

    /// The HTML.
    package func render() -> String {
        var meta = [
            ("property", "og:title", title), ("property", "og:type", "website"), ("property", "og:url", shortURL),
            ("property", "og:site_name", siteName), ("name", "twitter:title", title),
            ("name", "twitter:card", imageURL == nil ? "summary" : "summary_large_image"),
        ]
        if let description {
            meta += [("name", "description", description), ("property", "og:description", description), ("name", "twitter:description", description)]
        }
        if let imageURL {
            meta += [("property", "og:image", imageURL), ("name", "twitter:image", imageURL)]
        }
        let urlNames: Set<String> = ["og:url", "og:image", "twitter:image"]
        var head = meta.map { kind, name, value in
            let content = urlNames.contains(name) ? HTML.attributeURL(value) : HTML.escape(value)
            return "<meta \(kind)=\"\(HTML.escape(name))\" content=\"\(content)\">\n"
        }.joined()
        head += "<link rel=\"canonical\" href=\"\(HTML.attributeURL(destination))\">\n"
        var body = "<h1>\(HTML.escape(title))</h1>\n"
        if let imageURL { body += "<img class=\"preview\" src=\"\(HTML.attributeURL(imageURL))\" alt=\"\">\n" }
        if let description { body += "<p>\(HTML.escape(description))</p>\n" }
        body += "<a class=\"button\" href=\"\(HTML.attributeURL(destination))\">Continue</a>"
        return HTML.document(title: title, head: head, body: body)
    }
}

/// The page an iPhone or iPad without the app gets: it leads to the App Store (or the fallback), and where the
/// browser blocks Universal Links it offers "Open in app" instead of sending the visitor on blindly.
package struct InterstitialPage: Sendable, Hashable {
    /// The app's name.
    package var appName: String
    /// Heading.
    package var title: String
    /// Optional description.
    package var description: String?
    /// Optional image.
    package var imageURL: String?
    /// App Store page, or the fallback when the app has no App Store id.
    package var storeURL: String
    /// Whether `storeURL` is the App Store (changes the button's words).
    package var isAppStore: Bool
    /// The app's own deep link, for "Open in app".
    package var openInAppURL: String?
    /// The web destination.
    package var webURL: String
    /// The click this page belongs to (posted back by the page's script).
    package var clickID: String
    /// Whether the page leads on by itself (false inside in-app browsers that block Universal Links).
    package var autoRedirect: Bool
    /// The in-app browser the visitor is in, when known.
    package var inAppBrowser: String?
    /// With "copy to open": the token the store button puts on the pasteboard (`ferry:clk_…`) for the app to read.
    package var copyToken: String?
    /// With "copy to open": the same click as a link (`https://go.example.com/slug?ferry_click_id=clk_…`), put on the
    /// pasteboard beside the token as a URL where the browser can (`text/uri-list`).
    package var copyLink: String?
    /// Whether the visitor is in an in-app browser that keeps Universal Links from the app: the page then offers
    /// "Open in app" and explains how to reach the real browser.
    package var inBlockingBrowser: Bool

    /// Creates an interstitial page.
    package init(
        appName: String, title: String, description: String?, imageURL: String?, storeURL: String, isAppStore: Bool,
        openInAppURL: String?, webURL: String, clickID: String, autoRedirect: Bool, inAppBrowser: String?, copyToken: String? = nil
    ) {
        self.copyToken = copyToken
        self.inBlockingBrowser = !autoRedirect && copyToken == nil
        self.appName = appName
        self.title = title
        self.description = description
        self.imageURL = imageURL
        self.storeURL = storeURL
        self.isAppStore = isAppStore
        self.openInAppURL = openInAppURL
        self.webURL = webURL
        self.clickID = clickID
        self.autoRedirect = autoRedirect
        self.inAppBrowser = inAppBrowser
    }

    /// The HTML. Its only script is Ferry's own file; the data it needs travels in `data-` attributes.
    package func render() -> String {
        var head = "<script src=\"\(HTML.interstitialScriptPath)\" defer></script>\n"
        if autoRedirect {
            head += "<noscript><meta http-equiv=\"refresh\" content=\"0;url=\(HTML.attributeURL(storeURL))\"></noscript>\n"
        }
        var body = "<h1>\(HTML.escape(title))</h1>\n"
        if let imageURL { body += "<img class=\"preview\" src=\"\(HTML.attributeURL(imageURL))\" alt=\"\">\n" }
        if let description { body += "<p>\(HTML.escape(description))</p>\n" }
        if inBlockingBrowser, let openInAppURL {
            body += "<a class=\"button\" id=\"ferry-open\" href=\"\(HTML.attributeURL(openInAppURL))\">Open in \(HTML.escape(appName))</a>\n"
        }
        let storeLabel = isAppStore ? "Get \(appName) on the App Store" : "Continue"
        if copyToken != nil {
            // A tap is needed to write the pasteboard: this button copies the token, then goes to the store.
            body += "<a class=\"button\" id=\"ferry-copy\" href=\"\(HTML.attributeURL(storeURL))\">\(HTML.escape(storeLabel))</a>\n"
            body += "<p>Tapping copies a code that lets \(HTML.escape(appName)) open this link after you install it.</p>\n"
        } else {
            body += "<a class=\"button\(autoRedirect ? "" : " secondary")\" id=\"ferry-store\" href=\"\(HTML.attributeURL(storeURL))\">\(HTML.escape(storeLabel))</a>\n"
        }
        if webURL != storeURL {
            body += "<a class=\"button secondary\" id=\"ferry-web\" href=\"\(HTML.attributeURL(webURL))\">Continue on the web</a>\n"
        }
        if inBlockingBrowser {
            body += "<p>Already have the app? Use the menu (•••) and choose “Open in browser”, then tap the link again.</p>\n"
        }
        var attributes = " data-click=\"\(HTML.escape(clickID))\" data-store=\"\(HTML.attributeURL(storeURL))\" data-auto=\"\(autoRedirect ? "1" : "0")\""
        if let copyToken { attributes += " data-token=\"\(HTML.escape(copyToken))\"" }
        if copyToken != nil, let copyLink { attributes += " data-token-link=\"\(HTML.attributeURL(copyLink))\"" }
        return HTML.document(title: title, head: head, body: body, bodyAttributes: attributes)
    }

    /// The script the page loads. Once the page is shown (not while a browser prerenders it), it reports what the
    /// browser can tell about the device for this click (screen, pixel ratio, time zone, languages, platform) with
    /// `sendBeacon`, then leads on to the store after a moment when the page says so; with "copy to open" its button
    /// first puts the click token on the pasteboard.
    package static let script = """
    (function () {
      "use strict";
      var body = document.body;
      if (!body) { return; }
      var click = body.getAttribute("data-click");
      var store = body.getAttribute("data-store");
      var token = body.getAttribute("data-token");
      var tokenLink = body.getAttribute("data-token-link");
      function go() {
        if (store && /^https?:\\/\\//.test(store)) { window.location.replace(store); }
      }
      // An id this browser keeps for the link domain: a later click from it, before the app is installed again on a
      // device it once led there, is that device's (a re-install). Nothing when storage is off or private.
      function browserID() {
        try {
          var storage = window.localStorage, id = storage.getItem("ferry_browser");
          if (id && /^fb_[A-Za-z0-9]{22}$/.test(id)) { return id; }
          var letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", bytes = new Uint8Array(22);
          window.crypto.getRandomValues(bytes);
          id = "fb_";
          for (var i = 0; i < bytes.length; i++) { id += letters.charAt(bytes[i] % 62); }
          storage.setItem("ferry_browser", id);
          return storage.getItem("ferry_browser") === id ? id : null;
        } catch (ignored) { return null; }
      }
      function report() {
        var nav = window.navigator, screen = window.screen || {};
        var width = Math.round(Math.min(screen.width || 0, screen.height || 0));
        var height = Math.round(Math.max(screen.width || 0, screen.height || 0));
        var zone = null;
        try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || null; } catch (ignored) {}
        var languages = nav.languages && nav.languages.length ? Array.prototype.slice.call(nav.languages, 0, 16) : (nav.language ? [nav.language] : []);
        var payload = JSON.stringify({
          click: click,
          signals: {
            platform: nav.platform || null,
            screenWidth: width > 0 ? width : null,
            screenHeight: height > 0 ? height : null,
            screenScale: window.devicePixelRatio || null,
            timeZone: zone,
            timeZoneOffsetSeconds: -new Date().getTimezoneOffset() * 60,
            languages: languages
          },
          browser: browserID()
        });
        if (nav.sendBeacon && nav.sendBeacon("\(HTML.signalsPath)", payload)) { return; }
        var request = new XMLHttpRequest();
        request.open("POST", "\(HTML.signalsPath)", true);
        request.send(payload);
      }
      function start() {
        if (click) { try { report(); } catch (ignored) {} }
        if (body.getAttribute("data-auto") === "1") { window.setTimeout(go, 250); }
      }
      // A page the browser renders ahead of a possible visit reports, and leads on, only once it is shown: its report
      // is what tells a person's prefetched click from a prefetch nobody followed.
      if (document.prerendering) { document.addEventListener("prerenderingchange", start, { once: true }); } else { start(); }
      var copy = document.getElementById("ferry-copy");
      if (copy && token) {
        copy.addEventListener("click", function (event) {
          event.preventDefault();
          var done = false;
          function finish() { if (!done) { done = true; go(); } }
          function copyText() {
            try { navigator.clipboard.writeText(token).then(finish, finish); } catch (ignored) { finish(); }
          }
          // One item with the token as text (what older apps read) and the click as a URL, which iOS reports
          // without the paste prompt, so the app reads the pasteboard only when it holds one. Text alone elsewhere.
          var Item = window.ClipboardItem;
          var asLink = tokenLink && /^https?:\\/\\//.test(tokenLink) && Item && navigator.clipboard.write &&
            (typeof Item.supports !== "function" || Item.supports("text/uri-list"));
          if (!asLink) { copyText(); } else {
            try {
              navigator.clipboard.write([new Item({
                "text/plain": new Blob([token], { type: "text/plain" }),
                "text/uri-list": new Blob([tokenLink], { type: "text/uri-list" })
              })]).then(finish, copyText);
            } catch (ignored) { copyText(); }
          }
          window.setTimeout(finish, 800);
        });
      }
    })();
    """
}

/// Friendly pages for links that are gone or never existed.
package struct StatusPage: Sendable, Hashable {
    /// HTTP status.
    package var status: Int
    /// Heading.
    package var title: String
    /// Explanation.
    package var message: String

    /// Creates a status page.
    package init(status: Int, title: String, message: String) {
        self.status = status
        self.title = title
        self.message = message
    }

    /// 400 for a request that names two hosts (two `Host` fields, or an absolute target on another host).
    package static let conflictingHost = StatusPage(status: 400, title: "Bad request", message: "This request names more than one host, so it cannot be answered.")
    /// 404 for an unknown slug or host.
    package static let notFound = StatusPage(status: 404, title: "Link not found", message: "This link does not exist. Check that it was copied completely.")
    // An expired or disabled link is answered 404, not 410 Gone: a PATCH can bring it back, and 410 is for what is gone for
    // good (RFC 9110, 15.5.11). The page says which it is.
    /// 404 for an expired link.
    package static let expired = StatusPage(status: 404, title: "This link has expired", message: "The link you followed is no longer active.")
    /// 404 for a disabled link.
    package static let disabled = StatusPage(status: 404, title: "This link is no longer available", message: "The owner of this link has turned it off.")
    /// 410 for a link on a domain its app no longer serves (a dropped domain, or one another app took since): unlike an
    /// expired or disabled link, nothing its owner does brings it back on this host.
    package static let domainRetired = StatusPage(status: 410, title: "This link is no longer available", message: "The site that made this link no longer serves links on this address.")
    /// 429 when a client clicked too many links that do not exist in a short time.
    package static let tooManyRequests = StatusPage(status: 429, title: "Too many requests", message: "Too many links that do not exist were opened from your network. Please wait a moment and try again.")
    /// 503 when a link cannot be looked up (its database is away and it was not cached).
    package static let unavailable = StatusPage(status: 503, title: "Try again in a moment", message: "This link cannot be opened right now. Please try again shortly.")

    /// The HTML.
    package func render() -> String {
        HTML.document(title: title, body: "<h1>\(HTML.escape(title))</h1>\n<p>\(HTML.escape(message))</p>")
    }
}
