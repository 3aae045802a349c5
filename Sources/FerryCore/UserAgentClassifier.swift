// User-Agent classification for link routing.
//
// Every click on a Ferry link goes through `UserAgentClassifier.classify(_:)`,
// so the classifier is built for speed: the header is scanned once, byte by
// byte, against a table of lowercase tokens that is bucketed by a hash of their
// first three bytes and built once per process. Matching is ASCII
// case-insensitive and done in place on the string's UTF-8 storage: no
// lowercased copy, no regular expressions and no heap allocation per call
// (version strings are at most 15 bytes, which Swift stores inline).
//
// Decision order (first rule that applies wins):
//  1. nil / empty                                   -> other
//  2. a named link-unfurler, crawler or AI agent    -> bot (named)
//  3. an HTTP library, monitor or headless browser  -> bot (named)
//  3b. a token of the data file (`UserAgentTokens`, made by
//     scripts/update-user-agents.py from public lists) -> bot (its name)
//  4. a generic crawler token ("bot", "spider", a URL in the header, ...) -> bot "generic",
//     unless it is only in an Android browser's device model (the first parentheses)
//  5. TVs, consoles, VR headsets, e-readers, feature phones, Windows Phone,
//     KaiOS, HarmonyOS NEXT                         -> other
//  6. iPhone / iPad / iPod                          -> iOS
//  7. Android                                       -> android
//  8. Windows, macOS, Linux, ChromeOS, BSD          -> desktop
//  9. no platform, engine or browser name           -> bot "unidentified"
//     (but a bare "Mozilla/5.0", "null" or a placeholder -> other)
// 10. anything else                                 -> other

/// What kind of client sent a request, decided from its User-Agent alone.
package enum ClientPlatform: String, Sendable, Codable, Hashable, CaseIterable {
    /// iPhone, iPad, iPod. An iPad that asks for desktop sites (the iPadOS
    /// default in Safari) sends a "Macintosh" User-Agent that cannot be told
    /// apart from a Mac, so it is classified as `.desktop`.
    case iOS = "ios"
    /// Android phones and tablets, including Android WebViews.
    case android
    /// Windows, macOS, Linux, ChromeOS and BSD browsers and desktop apps.
    case desktop
    /// Link-unfurling bots, crawlers, AI agents, HTTP libraries, monitoring
    /// tools and headless browsers.
    case bot
    /// Empty or unknown User-Agent, smart TVs, consoles, VR headsets,
    /// e-readers, feature phones and other platforms without app links.
    case other
}

/// The classification of one User-Agent header.
package struct ClientInfo: Sendable, Hashable {
    package var platform: ClientPlatform
    /// For bots: a stable short name, e.g. "facebook", "twitter", "slack",
    /// "linkedin", "whatsapp", "telegram", "discord", "imessage", "google",
    /// "googleother", "bing", "applebot", "yandex", "baidu", "duckduckgo",
    /// "pinterest", "redditbot", "skype", "curl", "python", "go-http" ...;
    /// "generic" when only a generic crawler token was found. Nil otherwise.
    package var botName: String?
    /// For iOS and Android clients inside an app's built-in browser: "facebook",
    /// "messenger", "instagram", "threads", "tiktok", "linkedin", "snapchat",
    /// "twitter", "wechat", "line", "pinterest", "google" (the Google app),
    /// "kakaotalk", "naver", "telegram", "viber", "whatsapp". Nil for normal
    /// browsers, and always nil on other platforms.
    package var inAppBrowser: String?
    /// True when the in-app browser is known not to hand Universal Links /
    /// App Links to the installed app, so the visitor has to be sent out of
    /// it (for example with an "Open in browser" prompt).
    package var blocksUniversalLinks: Bool
    /// OS version as reported by iOS and Android clients ("18.1", "14",
    /// "4.4.2"); nil for other platforms or when the header carries none.
    /// iOS versions like "CPU iPhone OS 18_1 like Mac OS X" become "18.1".
    /// Safari 26 and later freeze the reported iOS version at 18.6.
    package var osVersion: String?
    /// "iphone", "ipad" or "ipod" for iOS; nil otherwise.
    package var appleDevice: String?
    /// True for a bot of the data file's `mail` class: an email security service opening the links of a message.
    package var isMailScanner: Bool

    package init(
        platform: ClientPlatform,
        botName: String? = nil,
        inAppBrowser: String? = nil,
        blocksUniversalLinks: Bool = false,
        osVersion: String? = nil,
        appleDevice: String? = nil,
        isMailScanner: Bool = false
    ) {
        self.isMailScanner = isMailScanner
        self.platform = platform
        self.botName = botName
        self.inAppBrowser = inAppBrowser
        self.blocksUniversalLinks = blocksUniversalLinks
        self.osVersion = osVersion
        self.appleDevice = appleDevice
    }

    /// True for crawlers, link-preview fetchers and scripted HTTP clients.
    package var isBot: Bool { platform == .bot }

    /// True for iOS and Android clients.
    package var isMobile: Bool { platform == .iOS || platform == .android }
}

/// Classifies HTTP `User-Agent` headers. Stateless and cheap to create; the
/// token tables are shared by all instances.
package struct UserAgentClassifier: Sendable {
    /// Only this many leading bytes of a header are examined. Real headers are
    /// well under 1 KB; the cap bounds the work done for hostile input.
    package static let maximumScannedBytes = 4096

    package init() {}

    package func classify(_ userAgent: String?) -> ClientInfo {
        guard var text = userAgent, !text.isEmpty else {
            return ClientInfo(platform: .other)
        }
        return text.withUTF8 { utf8 in
            let scanned = UnsafeBufferPointer(rebasing: utf8.prefix(Self.maximumScannedBytes))
            return UserAgentRules.classify(scanned)
        }
    }
}

// MARK: - Rules

/// What a matched token means.
private enum TokenAction: Sendable {
    /// A bot; the payload indexes `CompiledRules.botNames`. Lower wins.
    case bot(UInt16)
    /// An in-app browser; the payload indexes `UserAgentRules.inAppBrowsers`. Lower wins.
    case inApp(UInt16)
    /// A fact used by the decision logic.
    case signal(Signal)
}

/// Facts collected during the scan that need context to interpret.
private enum Signal: UInt8, Sendable {
    // Clients that are only bots when the header is not browser-shaped.
    case whatsapp, tumblr, okhttp, cfnetwork, dalvik, viber, java
    // A browser engine or a browser's name: what every browser's header has, whatever its platform.
    case browserToken
    // Generic "bot" and the device names that contain it.
    case botWord, cubotWord, robotWord
    // Platforms.
    case nonTargetDevice, iphone, ipad, ipod, android, linuxFamily, windowsOrMac, mobileWord
    // Positions where an OS version may start.
    case iosVersion, iosVersionFallback, androidVersion
}

private enum UserAgentRules {
    // Patterns are lowercase ASCII and matched case-insensitively as plain
    // substrings. A leading "|" means the token must start a word: the byte
    // before it must not be an ASCII letter or digit.

    /// Named bots, most specific first: the first group that matches wins, so
    /// composite headers (iMessage, LINE, Telegram, LinkedIn...) come before
    /// the tokens they embed.
    static let namedBots: [(name: String, patterns: [String])] = [
        // Messages on iOS/macOS fetches previews as
        // "... Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0".
        ("imessage", ["facebookexternalhit/1.1 facebot twitterbot/1.0"]),
        // LINE's preview fetcher ("facebookexternalhit/1.1;line-poker/1.0"); not LINE's in-app browser.
        ("line", ["line-poker", "linespider", "linebotwebhook"]),
        ("kakaotalk", ["kakaotalk-scrap"]),
        // "TelegramBot (like TwitterBot)"
        ("telegram", ["telegrambot"]),
        ("viber", ["viberurldownloader"]),
        ("snapchat", ["snap url preview service"]),
        ("bluesky", ["bluesky cardyb", "cardyb/"]),
        // "http.rb/5.1.1 (Mastodon/4.2.1; +https://instance/)"
        ("mastodon", ["mastodon/"]),
        // Skype and Microsoft Teams link previews.
        ("skype", ["skypeuripreview"]),
        // Snapshots for Microsoft products (Teams, Outlook, Bing chat).
        ("microsoft", ["microsoftpreview"]),
        // Outlook and other Office apps fetch a link before opening the browser.
        ("office", ["ms-office", "msoffice", "microsoft office/", "microsoft outlook"]),
        // "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient ...)"
        ("linkedin", ["linkedinbot"]),
        ("slack", ["slackbot", "slack-imgproxy"]),
        ("discord", ["discordbot"]),
        // The crawler, not the app: the app sends "Pinterest for iOS" / "[Pinterest/iOS]".
        ("pinterest", ["pinterestbot", "pinterest/0.", "pinterest.com/bot"]),
        ("redditbot", ["redditbot"]),
        ("embedly", ["embedly"]),
        ("iframely", ["iframely"]),
        ("vkshare", ["vkshare"]),
        ("quora", ["quora link preview"]),
        ("nuzzel", ["nuzzel"]),
        ("flipboard", ["flipboardproxy", "flipboardrss", "flipboard.com/browserproxy"]),
        // "Feedly/1.0 (+http://www.feedly.com/fetcher.html; like FeedFetcher-Google)"
        ("feedly", ["feedlybot", "feedly.com/fetcher"]),
        // Apple's CDN fetching apple-app-site-association files.
        ("aasa", ["aasa-bot"]),
        ("applebot", ["applebot"]),
        ("facebook", ["facebookexternalhit", "facebot", "meta-externalagent", "meta-externalfetcher", "facebookcatalog"]),
        ("twitter", ["twitterbot"]),
        ("googleother", ["googleother"]),
        ("google", [
            "googlebot", "google-inspectiontool", "adsbot-google", "mediapartners-google", "apis-google",
            "feedfetcher-google", "google-pagerenderer", "google-read-aloud", "storebot-google",
            "google-site-verification", "google-structured-data", "googleimageproxy", "google web preview",
            "google favicon", "google-adwords", "appengine-google", "google-safety", "googleproducer",
            "google-cloudvertexbot", "google-extended", "duplexweb-google", "google-amphtml",
        ]),
        ("bing", ["bingbot", "bingpreview", "msnbot", "adidxbot", "bingvideopreview"]),
        ("yahoo", ["slurp", "yahoo link preview", "yahooseeker", "y!j-"]),
        // The crawlers only: the DuckDuckGo browser sends "DuckDuckGo/5".
        ("duckduckgo", ["duckduckbot", "duckduckgo-favicons-bot", "duckassistbot"]),
        ("baidu", ["baiduspider", "baidu-yunguance"]),
        // The crawlers only: Yandex Browser sends "YaBrowser/".
        ("yandex", ["yandexbot", "yandex.com/bots"]),
        ("petalbot", ["petalbot"]),
        ("semrush", ["semrushbot"]),
        ("ahrefs", ["ahrefsbot", "ahrefssiteaudit"]),
        ("mj12bot", ["mj12bot"]),
        ("dotbot", ["|dotbot"]),
        ("ccbot", ["|ccbot"]),
        ("gptbot", ["gptbot"]),
        ("chatgpt-user", ["chatgpt-user"]),
        ("oai-searchbot", ["oai-searchbot"]),
        ("claudebot", ["claudebot"]),
        ("claude-user", ["claude-user"]),
        ("claude-searchbot", ["claude-searchbot"]),
        ("anthropic", ["anthropic-ai"]),
        ("perplexitybot", ["perplexitybot"]),
        ("perplexity-user", ["perplexity-user"]),
        ("bytespider", ["bytespider"]),
        ("amazonbot", ["amazonbot"]),
        ("cohere", ["cohere-ai"]),
    ]

    /// HTTP libraries, command-line tools, monitors and headless browsers.
    /// Checked after the named bots (LinkedInBot embeds "Apache-HttpClient").
    static let tools: [(name: String, patterns: [String])] = [
        ("uptimerobot", ["uptimerobot"]),
        ("pingdom", ["pingdom"]),
        ("statuscake", ["statuscake"]),
        ("site24x7", ["site24x7"]),
        ("uptime-kuma", ["uptime-kuma"]),
        ("newrelic", ["newrelicpinger"]),
        ("datadog", ["datadogsynthetics"]),
        ("checkly", ["checkly"]),
        ("zabbix", ["zabbix"]),
        ("headlesschrome", ["headlesschrome"]),
        ("phantomjs", ["phantomjs"]),
        ("lighthouse", ["chrome-lighthouse"]),
        ("gtmetrix", ["gtmetrix"]),
        ("postman", ["postmanruntime"]),
        ("insomnia", ["|insomnia/"]),
        ("httpie", ["|httpie/"]),
        ("curl", ["|curl", "libcurl"]),
        ("wget", ["|wget"]),
        ("python", ["python-requests", "python-urllib", "python-httpx", "|python/", "aiohttp", "httplib2"]),
        ("scrapy", ["scrapy"]),
        ("go-http", ["go-http-client", "go 1.1 package http"]),
        ("java", ["apache-httpclient", "commons-httpclient", "java-http-client", "|jersey/"]),
        ("node", ["node-fetch", "|undici"]),
        ("axios", ["|axios/"]),
        ("perl", ["libwww-perl", "|lwp::"]),
        ("ruby", ["|http.rb/", "|faraday v"]),
        ("php", ["guzzlehttp"]),
        ("dart", ["dart:io"]),
        ("rust", ["|reqwest"]),
        ("wordpress", ["|wordpress/"]),
        ("zgrab", ["zgrab"]),
        ("nmap", ["nmap scripting engine"]),
        ("masscan", ["masscan"]),
        ("sqlmap", ["sqlmap"]),
    ]

    /// Tokens no real browser sends. A URL or "+http" in the header is the
    /// crawler convention ("(compatible; FooBot/1.0; +https://foo.example/bot)").
    /// The bare word "bot" is handled separately (see `Signal.botWord`).
    static let genericTokens: [String] = [
        "crawl", "spider", "preview", "fetcher", "scraper", "archiver", "headless",
        "httpclient", "http-client", "http_client", "http_request", "libwww",
        "validator", "linkcheck", "link checker", "uptime", "externalhit",
        "http://", "https://", "+http",
    ]

    /// In-app browsers, most specific first (Messenger before Facebook, whose
    /// "FBAN/" it shares).
    ///
    /// `blocks` is true only where the app is known to load links in its own
    /// WKWebView / Android WebView, where a navigation never reaches the OS
    /// link router, so Universal Links and App Links do not open the installed
    /// app. Apps whose behaviour is unknown or that use SFSafariViewController
    /// / Custom Tabs are left at false.
    static let inAppBrowsers: [(name: String, blocks: Bool, patterns: [String])] = [
        // Meta's in-app browser (shared by Facebook, Messenger, Instagram,
        // Threads) is a WebView with its own navigation: universal links stay
        // inside it. Messenger: "FBAN/MessengerForiOS", "FB_IAB/Orca-Android".
        ("messenger", true, ["messengerforios", "fb_iab/messenger", "orca-android", "messengerlite"]),
        // "Instagram 309.1.0.41.113 Android (...)", "Instagram 307.0.0.34.111 (iPhone15,3; iOS 17_1_1; ...)"
        ("instagram", true, ["instagram"]),
        // Threads identifies itself by its code name: "Barcelona 301.0.0.27.103 (...)".
        ("threads", true, ["|barcelona "]),
        // "[FBAN/FBIOS;FBAV/...]", "[FB_IAB/FB4A;FBAV/...]"
        ("facebook", true, ["fban/", "fbav/", "fb_iab/", "fbios", "|fb4a", "[fb"]),
        // TikTok's WebView keeps links in-app. "musical_ly_32.8.0", "trill_2023008030",
        // "BytedanceWebview/d8a21c6".
        ("tiktok", true, ["musical_ly", "bytedancewebview", "tiktok", "|trill_", "bytelocale"]),
        // LinkedIn's WebView ("[LinkedInApp]/9.29.8962") does not hand off universal links.
        ("linkedin", true, ["linkedinapp"]),
        // Snapchat's WebView ("Snapchat/12.80.0.40 (like Safari/...)") keeps links in-app.
        ("snapchat", true, ["|snapchat/"]),
        // Only the WebView builds of the X/Twitter app identify themselves
        // ("Twitter for iPhone/8.8", "TwitterAndroid"); they keep links in-app.
        // Builds that use SFSafariViewController / Custom Tabs are not detectable.
        ("twitter", true, ["twitter for iphone", "twitter for ipad", "twitterandroid"]),
        // WeChat ("MicroMessenger/8.0.44") blocks universal links, App Store
        // links and most custom schemes.
        ("wechat", true, ["micromessenger"]),
        // LINE's in-app browser ("Safari Line/13.16.0", "Line/13.16.1/IAB") keeps links in-app.
        ("line", true, ["|line/"]),
        // Pinterest's WebView ("[Pinterest/iOS]", "Pinterest for Android/...") keeps links in-app.
        ("pinterest", true, ["pinterest for ios", "pinterest for android", "[pinterest/"]),
        // The Google app ("GSA/297.0...") opens universal links in the installed app.
        ("google", false, ["|gsa/"]),
        // Behaviour not established for the following: reported, not blocking.
        ("kakaotalk", false, ["kakaotalk"]),
        ("naver", false, ["naver(inapp"]),
        ("telegram", false, ["telegram-android"]),
    ]

    /// Context tokens.
    static let signals: [(pattern: String, signal: Signal)] = {
        var list: [(String, Signal)] = [
            ("whatsapp", .whatsapp), ("|tumblr/", .tumblr), ("okhttp", .okhttp),
            ("cfnetwork/", .cfnetwork), ("|dalvik/", .dalvik), ("|viber/", .viber), ("|java/", .java),
            ("bot", .botWord), ("cubot", .cubotWord), ("robot", .robotWord),
            ("iphone", .iphone), ("ipad", .ipad), ("ipod", .ipod), ("android", .android),
            ("linux", .linuxFamily), ("x11", .linuxFamily), ("|cros ", .linuxFamily),
            ("freebsd", .linuxFamily), ("openbsd", .linuxFamily), ("netbsd", .linuxFamily),
            ("windows", .windowsOrMac), ("macintosh", .windowsOrMac), ("mac os x", .windowsOrMac),
            ("|win64", .windowsOrMac), ("|win32", .windowsOrMac), ("|wow64", .windowsOrMac),
            ("mobile", .mobileWord),
            ("iphone os ", .iosVersion), ("cpu os ", .iosVersion),
            ("|ios ", .iosVersionFallback), ("|ipados ", .iosVersionFallback),
            ("android ", .androidVersion),
        ]
        // Platforms with no app links to open: TVs and streaming sticks
        // (Samsung Tizen, LG webOS, Android TV, Fire TV "AFTxx", Chromecast,
        // Apple TV, Roku, HbbTV), consoles, VR headsets, e-readers, feature
        // phones, Windows Phone (which claims "Android" and "iPhone"), KaiOS
        // and HarmonyOS NEXT.
        let nonTarget = [
            "smart-tv", "smarttv", "smart tv", "tizen", "web0s", "webos", "netcast", "hbbtv",
            "android tv", "googletv", "google tv", "appletv", "apple tv", "tvos", "crkey",
            "chromecast", "bravia", "roku", "vidaa", "philipstv", "; aft",
            "playstation", "xbox", "nintendo", "oculusbrowser", "kindle/",
            "windows phone", "windows mobile", "iemobile", "kaios", "blackberry", "bb10",
            "symbian", "symbos", "series40", "j2me", "midp", "openharmony",
        ]
        list += nonTarget.map { ($0, Signal.nonTargetDevice) }
        // Engines and browsers, including text browsers and the feature phones' own (their platform may be unnamed).
        let browsers = [
            "gecko", "webkit", "khtml", "presto", "trident", "msie", "chrome", "safari", "firefox", "opera", "|edg",
            "lynx", "|links", "|w3m", "dillo", "netsurf", "konqueror", "mosaic", "netfront", "up.browser", "obigo",
            "openwave", "docomo", "kddi", "softbank", "nokia", "browser", "palmos", "|brew", "polaris", "sonyericsson",
            "foma", "teleca", "novarra", "elaine/", "planetweb", "xiino", "palmscape",
            // Amazon's CDN in front of a person whose header it did not forward.
            "amazon cloudfront",
        ]
        list += browsers.map { ($0, Signal.browserToken) }
        return list
    }()

    /// The compiled form of the rules above, built on first use.
    static let compiled = CompiledRules()

    // MARK: Decision

    static func classify(_ ua: UnsafeBufferPointer<UInt8>) -> ClientInfo {
        let rules = compiled
        let scan = rules.table.scan(ua)
        let browserShaped = startsWithMozilla(ua)

        if scan.bot < rules.toolsStart { return bot(rules.botNames[scan.bot]) }
        if !browserShaped {
            // "WhatsApp/2.23.20.0 A", "WhatsApp/2.21.12.21 i": the preview fetcher.
            if scan.has(.whatsapp) { return bot("whatsapp") }
            // "Tumblr/14.0.835.186"
            if scan.has(.tumblr) { return bot("tumblr") }
        }
        if scan.bot < rules.genericRank { return bot(rules.botNames[scan.bot]) }
        if !browserShaped {
            // Apple's networking stack without a browser in front of it, e.g.
            // "Viber/18.0.1.286 CFNetwork/1335.0.3 Darwin/21.6.0" fetching a preview.
            if scan.has(.cfnetwork) { return bot(scan.has(.viber) ? "viber" : "cfnetwork") }
            // A bare "okhttp/4.12.0" is a library, not a browser.
            if scan.has(.okhttp) { return bot("okhttp") }
            // Android's default HTTP client: "Dalvik/2.1.0 (Linux; U; Android 13; ...)".
            if scan.has(.dalvik) { return bot("dalvik") }
            // Java's HTTP client ("Java/17.0.2"), not a feature phone's browser naming its Java runtime ("... Java/HWJa/1.0
            // Profile/MIDP-2.0").
            if scan.has(.java) && !scan.has(.nonTargetDevice) { return bot("java") }
        }
        let mentionsMobileDevice = scan.has(.iphone) || scan.has(.ipad) || scan.has(.ipod) || scan.has(.android)
        if scan.bot == rules.genericRank
            // "bot" that is not part of a CUBOT phone or the word "robot".
            || scan.botWords > scan.cubotWords + scan.robotWords
            // "robot" outside of a phone's model name.
            || (scan.robotWords > 0 && !mentionsMobileDevice) {
            // An Android phone's model is named in the header's first parentheses ("Linux; Android 7.0; M bot 54"): a
            // crawler's word found only there names the phone.
            let onlyInModel = browserShaped && scan.has(.android) && max(scan.lastBotEnd, scan.lastBotWordEnd) <= firstClosingParenthesis(ua)
            if !onlyInModel { return bot("generic") }
        }

        if scan.has(.nonTargetDevice) { return ClientInfo(platform: .other) }

        if scan.has(.ipod) || scan.has(.ipad) || scan.has(.iphone) {
            let device = scan.has(.ipod) ? "ipod" : (scan.has(.ipad) ? "ipad" : "iphone")
            let start = scan.iosVersionAt >= 0 ? scan.iosVersionAt : scan.iosFallbackVersionAt
            var info = ClientInfo(platform: .iOS, osVersion: version(in: ua, at: start), appleDevice: device)
            setInAppBrowser(&info, scan: scan, rules: rules, browserShaped: browserShaped)
            return info
        }
        if scan.has(.android) {
            var info = ClientInfo(platform: .android, osVersion: version(in: ua, at: scan.androidVersionAt))
            setInAppBrowser(&info, scan: scan, rules: rules, browserShaped: browserShaped)
            return info
        }
        if scan.has(.windowsOrMac) { return ClientInfo(platform: .desktop) }
        if scan.has(.linuxFamily) {
            // Sailfish, Firefox OS, Ubuntu Touch: mobile Linux without app links.
            return ClientInfo(platform: scan.has(.mobileWord) ? .other : .desktop)
        }
        // No platform, no engine and no browser's name ("Zeno", "Seobility", "Mozilla/5.0 (compatible; Dormouse/1.0)"):
        // a program, not a person's browser, whose header says what it is and nothing a browser says.
        // A bare "Mozilla/5.0" or a placeholder ("-") says nothing either way: a privacy tool's, and left to the people.
        if !scan.has(.browserToken) && !scan.has(.mobileWord) && !saysNothing(ua, browserShaped: browserShaped) { return bot("unidentified") }
        return ClientInfo(platform: .other)
    }

    private static func bot(_ name: String) -> ClientInfo {
        ClientInfo(platform: .bot, botName: name, isMailScanner: UserAgentTokens.mailScanners.contains(name))
    }

    private static func setInAppBrowser(
        _ info: inout ClientInfo, scan: ScanResult, rules: CompiledRules, browserShaped: Bool
    ) {
        if scan.inApp < rules.inAppNames.count {
            info.inAppBrowser = rules.inAppNames[scan.inApp]
            info.blocksUniversalLinks = rules.inAppBlocks[scan.inApp]
        } else if browserShaped && scan.has(.whatsapp) {
            info.inAppBrowser = "whatsapp"
        } else if browserShaped && scan.has(.viber) {
            // "... Mobile Safari/537.36 Viber/14.7.0.4"
            info.inAppBrowser = "viber"
        }
    }

    /// A header of at most three bytes besides blanks, a script's "null" or "undefined", or "Mozilla/" and a version
    /// alone.
    private static func saysNothing(_ ua: UnsafeBufferPointer<UInt8>, browserShaped: Bool) -> Bool {
        let meaningful = ua.lazy.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x22 && $0 != 0x27 }.map(asciiLowercase)
        if meaningful.count <= 3 { return true }
        if meaningful.count <= 9, ["null", "undefined"].contains(where: { $0.utf8.elementsEqual(meaningful) }) { return true }
        return browserShaped && !ua.contains(0x20) && !ua.contains(UInt8(ascii: "("))
    }

    /// Where the header's first ")" is, or -1.
    private static func firstClosingParenthesis(_ ua: UnsafeBufferPointer<UInt8>) -> Int {
        ua.firstIndex(of: UInt8(ascii: ")")) ?? -1
    }

    /// True when the header starts with "Mozilla/", ignoring leading blanks and quotes.
    private static func startsWithMozilla(_ ua: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < ua.count, ua[i] == 0x20 || ua[i] == 0x09 || ua[i] == 0x22 || ua[i] == 0x27 { i += 1 }
        let prefix: StaticString = "mozilla/"
        let length = prefix.utf8CodeUnitCount
        guard ua.count - i >= length else { return false }
        return prefix.withUTF8Buffer { expected in
            for k in 0..<length where asciiLowercase(ua[i + k]) != expected[k] { return false }
            return true
        }
    }

    /// Reads a version such as "17_5_1", "18.1" or "4.4.2" starting at
    /// `start`, with underscores turned into dots. Returns nil when there is
    /// none or when it is longer than 15 bytes (no real version is).
    private static func version(in ua: UnsafeBufferPointer<UInt8>, at start: Int) -> String? {
        guard start >= 0, start < ua.count, isDigit(ua[start]) else { return nil }
        let maximumLength = 15
        var end = start
        while end < ua.count, isDigit(ua[end]) || ua[end] == 0x2E || ua[end] == 0x5F {
            end += 1
            if end - start > maximumLength { return nil }
        }
        while end > start, !isDigit(ua[end - 1]) { end -= 1 }
        let count = end - start
        return String(unsafeUninitializedCapacity: count) { out in
            for k in 0..<count {
                let byte = ua[start + k]
                out[k] = byte == 0x5F ? 0x2E : byte
            }
            return count
        }
    }
}

// MARK: - Compiled rules

/// Everything the hot path reads, compiled once per process. The buffers are
/// immutable after initialisation and deliberately never freed (the single
/// instance lives as long as the process), so reading them needs no reference
/// counting and sharing them between threads is safe.
private final class CompiledRules: @unchecked Sendable {
    let table: TokenTable
    let botNames: UnsafeBufferPointer<String>
    /// Bot ranks below this are named bots; from here on, tools.
    let toolsStart: Int
    /// The rank of the generic crawler tokens; below it, tools.
    let genericRank: Int
    let inAppNames: UnsafeBufferPointer<String>
    let inAppBlocks: UnsafeBufferPointer<Bool>

    init() {
        typealias R = UserAgentRules
        // The data file's bots come after the ones named here (which know composite headers) and before the
        // generic tokens, grouped by name in the file's order.
        let listed = UserAgentTokens.bots
        toolsStart = R.namedBots.count
        genericRank = R.namedBots.count + R.tools.count + listed.count
        botNames = permanentBuffer(R.namedBots.map(\.name) + R.tools.map(\.name) + listed.map(\.name) + ["generic"])
        inAppNames = permanentBuffer(R.inAppBrowsers.map(\.name))
        inAppBlocks = permanentBuffer(R.inAppBrowsers.map(\.blocks))

        var rules: [(String, TokenAction)] = []
        for (rank, group) in (R.namedBots + R.tools + listed.map { (name: $0.name, patterns: $0.patterns) }).enumerated() {
            for pattern in group.patterns { rules.append((pattern, .bot(UInt16(rank)))) }
        }
        for pattern in R.genericTokens { rules.append((pattern, .bot(UInt16(genericRank)))) }
        for (rank, app) in R.inAppBrowsers.enumerated() {
            for pattern in app.patterns { rules.append((pattern, .inApp(UInt16(rank)))) }
        }
        for (pattern, signal) in R.signals { rules.append((pattern, .signal(signal))) }
        table = TokenTable(rules)
    }
}

/// Copies `elements` into memory that is never freed.
private func permanentBuffer<Element>(_ elements: [Element]) -> UnsafeBufferPointer<Element> {
    let buffer = UnsafeMutableBufferPointer<Element>.allocate(capacity: max(elements.count, 1))
    _ = buffer.initialize(from: elements)
    return UnsafeBufferPointer(rebasing: buffer[..<elements.count])
}

// MARK: - Scanning

private struct ScanResult {
    /// Lowest matching index into `CompiledRules.botNames`, or `Int.max`.
    var bot = Int.max
    /// Lowest matching index into `UserAgentRules.inAppBrowsers`, or `Int.max`.
    var inApp = Int.max
    var signals: UInt64 = 0
    var botWords = 0
    /// Where the last bot token and the last word "bot" end (-1: none).
    var lastBotEnd = -1
    var lastBotWordEnd = -1
    var cubotWords = 0
    var robotWords = 0
    var iosVersionAt = -1
    var iosFallbackVersionAt = -1
    var androidVersionAt = -1

    func has(_ signal: Signal) -> Bool { signals & (1 << UInt64(signal.rawValue)) != 0 }

    /// Records a token that ends just before `end`.
    mutating func record(_ action: TokenAction, end: Int, in ua: UnsafeBufferPointer<UInt8>) {
        switch action {
        case .bot(let rank):
            bot = min(bot, Int(rank))
            lastBotEnd = max(lastBotEnd, end)
        case .inApp(let rank):
            inApp = min(inApp, Int(rank))
        case .signal(let signal):
            signals |= 1 << UInt64(signal.rawValue)
            let digitFollows = end < ua.count && isDigit(ua[end])
            switch signal {
            case .botWord:
                botWords += 1
                lastBotWordEnd = max(lastBotWordEnd, end)
            case .cubotWord: cubotWords += 1
            case .robotWord: robotWords += 1
            case .iosVersion where iosVersionAt < 0 && digitFollows: iosVersionAt = end
            case .iosVersionFallback where iosFallbackVersionAt < 0 && digitFollows: iosFallbackVersionAt = end
            case .androidVersion where androidVersionAt < 0 && digitFollows: androidVersionAt = end
            default: break
            }
        }
    }
}

/// Lowercase tokens bucketed by a hash of their first three bytes, so that a
/// single pass over the header compares each position against at most a
/// couple of candidate tokens, and usually none.
private struct TokenTable {
    struct Entry: Sendable {
        var offset: Int32
        var length: Int32
        var wordStart: Bool
        var action: TokenAction
    }

    /// log2 of the number of buckets: 8192 two-byte offsets keep the index in L1.
    static let bucketBits: UInt32 = 13
    static let bucketCount = 1 << Int(bucketBits)

    /// Bucket of a token whose first three (lowercased) bytes are packed
    /// big-endian into `trigram` (Fibonacci hashing).
    @inline(__always)
    static func bucket(_ trigram: UInt32) -> Int {
        Int((trigram &* 0x9E37_79B1) >> (32 - bucketBits))
    }

    /// All token bytes, concatenated.
    let bytes: UnsafeBufferPointer<UInt8>
    /// Entries sorted by bucket.
    let entries: UnsafeBufferPointer<Entry>
    /// `entries[bucketStart[k]..<bucketStart[k + 1]]` are the tokens of bucket `k`.
    let bucketStart: UnsafeBufferPointer<UInt16>

    init(_ rules: [(pattern: String, action: TokenAction)]) {
        var bytes: [UInt8] = []
        var unsorted: [(bucket: Int, entry: Entry)] = []
        for (pattern, action) in rules {
            var token = Array(pattern.utf8)
            let wordStart = token.first == UInt8(ascii: "|")
            if wordStart { token.removeFirst() }
            precondition(token.count >= 3 && token.allSatisfy { $0 < 0x80 && asciiLowercase($0) == $0 },
                         "User-Agent tokens must be lowercase ASCII of at least three bytes: \(pattern)")
            let entry = Entry(offset: Int32(bytes.count), length: Int32(token.count), wordStart: wordStart, action: action)
            let trigram = UInt32(token[0]) << 16 | UInt32(token[1]) << 8 | UInt32(token[2])
            unsorted.append((Self.bucket(trigram), entry))
            bytes += token
        }
        precondition(unsorted.count < Int(UInt16.max))
        // Stable sort keeps declaration order within a bucket.
        let sorted = unsorted.enumerated()
            .sorted { ($0.element.bucket, $0.offset) < ($1.element.bucket, $1.offset) }
            .map(\.element)
        var bucketStart = [UInt16](repeating: 0, count: Self.bucketCount + 1)
        for item in sorted { bucketStart[item.bucket + 1] += 1 }
        for k in 0..<Self.bucketCount { bucketStart[k + 1] += bucketStart[k] }
        self.bytes = permanentBuffer(bytes)
        self.entries = permanentBuffer(sorted.map(\.entry))
        self.bucketStart = permanentBuffer(bucketStart)
    }

    func scan(_ ua: UnsafeBufferPointer<UInt8>) -> ScanResult {
        var result = ScanResult()
        let count = ua.count
        guard count >= 3 else { return result }
        // The lowercased bytes at i, i + 1 and i + 2, packed big-endian.
        var trigram = UInt32(asciiLowercase(ua[0])) << 8 | UInt32(asciiLowercase(ua[1]))
        for i in 0..<(count - 2) {
            trigram = (trigram << 8 | UInt32(asciiLowercase(ua[i + 2]))) & 0xFF_FFFF
            let bucket = Self.bucket(trigram)
            var k = Int(bucketStart[bucket])
            let bucketEnd = Int(bucketStart[bucket + 1])
            while k < bucketEnd {
                let entry = entries[k]
                k += 1
                let length = Int(entry.length)
                if length > count - i { continue }
                if entry.wordStart && i > 0 && isWordByte(ua[i - 1]) { continue }
                let offset = Int(entry.offset)
                // Buckets are shared by unrelated tokens: compare every byte.
                var j = 0
                while j < length && asciiLowercase(ua[i + j]) == bytes[offset + j] { j += 1 }
                if j == length { result.record(entry.action, end: i + length, in: ua) }
            }
        }
        return result
    }
}

@inline(__always)
private func asciiLowercase(_ byte: UInt8) -> UInt8 {
    byte &- 0x41 < 26 ? byte | 0x20 : byte
}

@inline(__always)
private func isDigit(_ byte: UInt8) -> Bool {
    byte &- 0x30 < 10
}

@inline(__always)
private func isWordByte(_ byte: UInt8) -> Bool {
    asciiLowercase(byte) &- 0x61 < 26 || isDigit(byte)
}

// MARK: - The data file

extension UserAgentTokens {
    /// The bots of the data file, by name in the order they first appear, with their class and
    /// tokens. A row that is not four tab-separated fields, or whose token the scanner could not hold (lowercase
    /// ASCII, at least three bytes besides a leading `|`), is left out.
    static let bots: [(name: String, kind: String, patterns: [String])] = {
        var order: [String] = []
        var groups: [String: (kind: String, patterns: [String])] = [:]
        for line in UserAgentTokens.table.split(separator: "\n") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 4 else { continue }
            let (kind, name, token) = (fields[0], fields[1], fields[2])
            let bare = token.hasPrefix("|") ? token.dropFirst() : Substring(token)
            guard bare.utf8.count >= 3, bare.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && !($0 >= 0x41 && $0 <= 0x5A) }) else { continue }
            if groups[name] == nil { order.append(name) }
            groups[name, default: (kind, [])].patterns.append(token)
        }
        return order.map { (name: $0, kind: groups[$0]!.kind, patterns: groups[$0]!.patterns) }
    }()

    /// The names of the data file's email security scanners (class `mail`).
    static let mailScanners: Set<String> = Set(bots.filter { $0.kind == "mail" }.map(\.name))
}
