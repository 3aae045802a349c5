import FerryTestSupport
import Foundation
import Testing
@testable import FerryCore

/// One User-Agent header and the classification it must produce.
struct UserAgentCase: Sendable, CustomTestStringConvertible {
    let userAgent: String
    let expected: ClientInfo

    var testDescription: String {
        userAgent.count <= 90 ? userAgent : String(userAgent.prefix(87)) + "..."
    }

    static func bot(_ userAgent: String, _ name: String) -> UserAgentCase {
        UserAgentCase(userAgent: userAgent, expected: ClientInfo(platform: .bot, botName: name))
    }

    static func iOS(
        _ userAgent: String, _ version: String?, _ device: String = "iphone",
        app: String? = nil, blocks: Bool = false
    ) -> UserAgentCase {
        UserAgentCase(userAgent: userAgent, expected: ClientInfo(
            platform: .iOS, inAppBrowser: app, blocksUniversalLinks: blocks,
            osVersion: version, appleDevice: device))
    }

    static func android(
        _ userAgent: String, _ version: String?, app: String? = nil, blocks: Bool = false
    ) -> UserAgentCase {
        UserAgentCase(userAgent: userAgent, expected: ClientInfo(
            platform: .android, inAppBrowser: app, blocksUniversalLinks: blocks, osVersion: version))
    }

    static func desktop(_ userAgent: String) -> UserAgentCase {
        UserAgentCase(userAgent: userAgent, expected: ClientInfo(platform: .desktop))
    }

    static func other(_ userAgent: String) -> UserAgentCase {
        UserAgentCase(userAgent: userAgent, expected: ClientInfo(platform: .other))
    }
}

/// User-Agent headers as sent in the wild by the clients they name.
enum UserAgentCorpus {
    typealias C = UserAgentCase

    // MARK: Link unfurlers and chat/social preview fetchers

    static let linkPreviewBots: [UserAgentCase] = [
        // Meta
        C.bot("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", "facebook"),
        C.bot("facebookexternalhit/1.0 (+http://www.facebook.com/externalhit_uatext.php)", "facebook"),
        C.bot("facebookexternalhit/1.1", "facebook"),
        C.bot("Facebot/1.0", "facebook"),
        C.bot("meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)", "facebook"),
        C.bot("facebookcatalog/1.0", "facebook"),
        // Messages (iMessage) link previews on iOS and macOS
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_11_1) AppleWebKit/601.2.4 (KHTML, like Gecko) Version/9.0.1 Safari/601.2.4 facebookexternalhit/1.1 Facebot Twitterbot/1.0", "imessage"),
        // X / Twitter
        C.bot("Twitterbot/1.0", "twitter"),
        C.bot("Twitterbot/0.1", "twitter"),
        // Slack
        C.bot("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", "slack"),
        C.bot("Slackbot-LinkExpanding (+https://api.slack.com/robots)", "slack"),
        C.bot("Slackbot 1.0 (+https://api.slack.com/robots)", "slack"),
        C.bot("Slack-ImgProxy (+https://api.slack.com/robots)", "slack"),
        C.bot("Slack-ImgProxy 1.138 (+https://api.slack.com/robots)", "slack"),
        C.bot("Slack-ImgProxy 149 (+https://api.slack.com/robots)", "slack"),
        // LinkedIn
        C.bot("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", "linkedin"),
        C.bot("LinkedInBot/1.0 (compatible; Mozilla/5.0; Jakarta Commons-HttpClient/3.1 +http://www.linkedin.com)", "linkedin"),
        C.bot("LinkedInBot/1.0 (compatible; Mozilla/5.0; Jakarta Commons-HttpClient/4.3 +http://www.linkedin.com)", "linkedin"),
        // WhatsApp (A = Android, i = iOS, N = Nokia)
        C.bot("WhatsApp/2.23.20.0 A", "whatsapp"),
        C.bot("WhatsApp/2.21.12.21 i", "whatsapp"),
        C.bot("WhatsApp/2.19.258 A", "whatsapp"),
        C.bot("WhatsApp/2.19.92 i", "whatsapp"),
        C.bot("WhatsApp/2.16.42 A", "whatsapp"),
        C.bot("WhatsApp/2.12.15/i", "whatsapp"),
        C.bot("WhatsApp/0.3.4479 N", "whatsapp"),
        C.bot("WhatsApp", "whatsapp"),
        // Telegram, Discord, Skype / Teams, Viber, Snapchat, LINE
        C.bot("TelegramBot (like TwitterBot)", "telegram"),
        C.bot("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "discord"),
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10.10; rv:38.0) Gecko/20100101 Firefox/38.0 (compatible; Discordbot/2.0; +https://discordapp.com)", "discord"),
        C.bot("Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5", "skype"),
        C.bot("Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com", "skype"),
        C.bot("ViberUrlDownloader", "viber"),
        C.bot("Viber/18.0.1.286 CFNetwork/1335.0.3 Darwin/21.6.0", "viber"),
        C.bot("Mozilla/5.0 (compatible; Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots)", "snapchat"),
        C.bot("facebookexternalhit/1.1;line-poker/1.0", "line"),
        // Microsoft link previews (Teams, Outlook) and Office apps fetching links
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MicrosoftPreview/2.0; +https://aka.ms/MicrosoftPreview) Chrome/80.0.345.0 Safari/537.36", "microsoft"),
        C.bot("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Safari/537.36 Edg/112.0.1722.48 MicrosoftPreview/2.0 +https://aka.ms/MicrosoftPreview", "microsoft"),
        C.bot("Microsoft Office/16.0 (Windows NT 10.0; Microsoft Outlook 16.0.12026; Pro)", "office"),
        C.bot("Mozilla/4.0 (compatible; ms-office; MSOffice 16)", "office"),
        C.bot("Mozilla/4.0 (compatible; MSIE 7.0; Windows NT 10.0; WOW64; Trident/7.0; .NET4.0C; .NET4.0E; Microsoft Outlook 16.0.4266; ms-office; MSOffice 16)", "office"),
        // Fediverse, Bluesky, Tumblr, Reddit, Pinterest, VK, Quora, Flipboard, Nuzzel
        C.bot("http.rb/5.1.1 (Mastodon/4.2.1; +https://mastodon.social/)", "mastodon"),
        C.bot("http.rb/5.1.1 (Mastodon/4.2.10; +https://mastodon.social/)", "mastodon"),
        C.bot("http.rb/2.2.2 (Mastodon/1.5.1; +https://example-masto-instance.org/)", "mastodon"),
        C.bot("Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)", "bluesky"),
        C.bot("Bluesky Cardyb/1.1", "bluesky"),
        C.bot("Tumblr/14.0.835.186", "tumblr"),
        C.bot("Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)", "redditbot"),
        C.bot("Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)", "pinterest"),
        C.bot("Pinterest/0.2 (+http://www.pinterest.com/bot.html)", "pinterest"),
        C.bot("Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)", "vkshare"),
        C.bot("Quora Link Preview/1.0 (http://www.quora.com)", "quora"),
        C.bot("Mozilla/5.0 (compatible; FlipboardProxy/1.2; +http://flipboard.com/browserproxy)", "flipboard"),
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10.11; rv:49.0) Gecko/20100101 Firefox/49.0 (FlipboardProxy/1.2; +http://flipboard.com/browserproxy)", "flipboard"),
        C.bot("Nuzzel", "nuzzel"),
        // Embed services
        C.bot("Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)", "embedly"),
        C.bot("Embedly +support@embed.ly", "embedly"),
        C.bot("Iframely/1.3.1 (+https://iframely.com/docs/about) Notion", "iframely"),
        C.bot("Iframely/1.3.1 (+https://iframely.com/docs/about) Canva", "iframely"),
        C.bot("Iframely/1.3.1 (+https://iframely.com/docs/about)", "iframely"),
        C.bot("Mozilla/5.0 (compatible; Yahoo Link Preview; https://help.yahoo.com/kb/mail/yahoo-link-preview-SLN23615.html)", "yahoo"),
        // Apple's CDN fetching apple-app-site-association
        C.bot("AASA-Bot/1.0.0", "aasa"),
    ]

    // MARK: Search engines, SEO crawlers and AI agents

    static let crawlers: [UserAgentCase] = [
        // Google
        C.bot("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "google"),
        C.bot("Googlebot/2.1 (+http://www.google.com/bot.html)", "google"),
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "google"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Safari/537.36", "google"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 8_3 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12F70 Safari/600.1.4 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "google"),
        C.bot("DoCoMo/2.0 N905i(c100;TB;W24H16) (compatible; Googlebot-Mobile/2.1; +http://www.google.com/bot.html)", "google"),
        C.bot("Googlebot-Image/1.0", "google"),
        C.bot("Googlebot-Video/1.0", "google"),
        C.bot("Googlebot-News", "google"),
        C.bot("Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)", "google"),
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/144.0.7559.132 Mobile Safari/537.36 (compatible; Google-InspectionTool/1.0;)", "google"),
        C.bot("AdsBot-Google (+http://www.google.com/adsbot.html)", "google"),
        C.bot("AdsBot-Google-Mobile-Apps", "google"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 9_1 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13B143 Safari/601.1 (compatible; AdsBot-Google-Mobile; +http://www.google.com/mobile/adsbot.html)", "google"),
        C.bot("Mediapartners-Google", "google"),
        C.bot("Mozilla/5.0 (iPhone; U; CPU iPhone OS 10_0 like Mac OS X; en-us) AppleWebKit/602.1.38 (KHTML, like Gecko) Version/10.0 Mobile/14A5297c Safari/602.1 (compatible; Mediapartners-Google/2.1; +http://www.google.com/bot.html)", "google"),
        C.bot("APIs-Google (+https://developers.google.com/webmasters/APIs-Google.html)", "google"),
        C.bot("Feedfetcher-Google; (+http://www.google.com/feedfetcher.html; 1 subscribers; feed-id=728742641706423)", "google"),
        C.bot("Mozilla/5.0 Google-PageRenderer Google (+https://developers.google.com/+/web/snippet/)", "google"),
        C.bot("Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)", "google"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64; Storebot-Google/1.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.88 Safari/537.36", "google"),
        C.bot("Mozilla/5.0 (compatible; Google-Site-Verification/1.0)", "google"),
        C.bot("Mozilla/5.0 (compatible; Google-Structured-Data-Testing-Tool +https://search.google.com/structured-data/testing-tool)", "google"),
        C.bot("Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)", "google"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko; Google Web Preview) Chrome/27.0.1453 Safari/537.36", "google"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/49.0.2623.75 Safari/537.36 Google Favicon", "google"),
        C.bot("AppEngine-Google; (+http://code.google.com/appengine; appid: example)", "google"),
        C.bot("GoogleOther", "googleother"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GoogleOther) Chrome/126.0.6478.126 Safari/537.36", "googleother"),
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.6478.126 Mobile Safari/537.36 (compatible; GoogleOther)", "googleother"),
        C.bot("GoogleOther-Image/1.0", "googleother"),
        // Bing / Microsoft
        C.bot("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bing"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36", "bing"),
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/116.0.1938.76 Mobile Safari/537.36 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bing"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "bing"),
        C.bot("Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/534+ (KHTML, like Gecko) BingPreview/1.0b", "bing"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53 BingPreview/1.0b", "bing"),
        C.bot("Mozilla/5.0 (Windows NT 6.3; WOW64; Trident/7.0; rv:11.0; BingPreview/1.0b) like Gecko", "bing"),
        C.bot("msnbot/2.0b (+http://search.msn.com/msnbot.htm)", "bing"),
        C.bot("msnbot-media/1.1 (+http://search.msn.com/msnbot.htm)", "bing"),
        C.bot("Mozilla/5.0 (compatible; adidxbot/2.0; +http://www.bing.com/bingbot.htm)", "bing"),
        // Apple
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)", "applebot"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B410 Safari/600.1.4 (Applebot/0.1; +http://www.apple.com/go/applebot)", "applebot"),
        C.bot("Mozilla/5.0 (compatible; Applebot/0.3; +http://www.apple.com/go/applebot)", "applebot"),
        // Yahoo, DuckDuckGo, Baidu, Yandex, Petal
        C.bot("Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/help/us/ysearch/slurp)", "yahoo"),
        C.bot("Mozilla/5.0 (compatible; Yahoo! Slurp/3.0; http://help.yahoo.com/help/us/ysearch/slurp)", "yahoo"),
        C.bot("DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)", "duckduckgo"),
        C.bot("DuckDuckBot/1.0; (+http://duckduckgo.com/duckduckbot.html)", "duckduckgo"),
        C.bot("Mozilla/5.0 (compatible; DuckDuckBot-Https/1.1; https://duckduckgo.com/duckduckbot)", "duckduckgo"),
        C.bot("Mozilla/5.0 (compatible; DuckDuckGo-Favicons-Bot/1.0; +http://duckduckgo.com)", "duckduckgo"),
        C.bot("Mozilla/5.0 (compatible; Baiduspider/2.0; +http://www.baidu.com/search/spider.html)", "baidu"),
        C.bot("Mozilla/5.0 (compatible; Baiduspider-render/2.0; +http://www.baidu.com/search/spider.html)", "baidu"),
        C.bot("Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)", "yandex"),
        C.bot("Mozilla/5.0 (compatible; YandexImages/3.0; +http://yandex.com/bots)", "yandex"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 8_1 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12B411 Safari/600.1.4 (compatible; YandexMobileBot/3.0; +http://yandex.com/bots)", "yandex"),
        C.bot("Mozilla/5.0 (compatible;PetalBot;+https://webmaster.petalsearch.com/site/petalbot)", "petalbot"),
        C.bot("Mozilla/5.0 (Linux; Android 7.0;) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; PetalBot;+https://webmaster.petalsearch.com/site/petalbot)", "petalbot"),
        // SEO crawlers
        C.bot("Mozilla/5.0 (compatible; SemrushBot/7~bl; +http://www.semrush.com/bot.html)", "semrush"),
        C.bot("Mozilla/5.0 (compatible; SemrushBot-SA/0.97; +http://www.semrush.com/bot.html)", "semrush"),
        C.bot("SEMrushBot", "semrush"),
        C.bot("Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)", "ahrefs"),
        C.bot("Mozilla/5.0 (compatible; AhrefsBot/6.1; News; +http://ahrefs.com/robot/)", "ahrefs"),
        C.bot("Mozilla/5.0 (compatible; AhrefsSiteAudit/6.1; +http://ahrefs.com/robot/)", "ahrefs"),
        C.bot("Mozilla/5.0 (compatible; MJ12bot/v1.4.8; http://mj12bot.com/)", "mj12bot"),
        C.bot("MJ12bot/v1.2.0 (http://majestic12.co.uk/bot.php?+)", "mj12bot"),
        C.bot("Mozilla/5.0 (compatible; DotBot/1.1; http://www.opensiteexplorer.org/dotbot, help@moz.com)", "dotbot"),
        C.bot("CCBot/2.0 (https://commoncrawl.org/faq/)", "ccbot"),
        // AI crawlers and agents
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot", "gptbot"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot", "gptbot"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot", "chatgpt-user"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot", "oai-searchbot"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", "claudebot"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)", "perplexitybot"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)", "perplexity-user"),
        C.bot("Mozilla/5.0 (Linux; Android 5.0) AppleWebKit/537.36 (KHTML, like Gecko) Mobile Safari/537.36 (compatible; Bytespider; spider-feedback@bytedance.com)", "bytespider"),
        C.bot("Mozilla/5.0 (iPhone; CPU iPhone OS 11_0 like Mac OS X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/46.0.2988.1545 Mobile Safari/537.36; Bytespider", "bytespider"),
        C.bot("Mozilla/5.0 (Linux; Android 8.0; Pixel 2 Build/OPD3.170816.012) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/58.0.9038.1080 Mobile Safari/537.36; Bytespider", "bytespider"),
        C.bot("Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Amazonbot/0.1; +https://developer.amazon.com/support/amazonbot) Chrome/119.0.6045.214 Safari/537.36", "amazonbot"),
        // Everything else with a crawler token
        C.bot("Mozilla/5.0 (compatible; SeznamBot/3.2; +http://napoveda.seznam.cz/en/seznambot-intro/)", "seznambot"),
        C.bot("Mozilla/5.0 (compatible; Qwantify/Bleriot/1.1; +https://help.qwant.com/bot)", "qwantify"),
        C.bot("Mozilla/5.0 (compatible; Qwantify/2.4w; +https://www.qwant.com/)/2.4w", "qwantify"),
        C.bot("Mozilla/5.0 (compatible; BLEXBot/1.0; +http://webmeup-crawler.com/)", "blexbot"),
        C.bot("Mozilla/5.0 (compatible; MojeekBot/0.6; +https://www.mojeek.com/bot.html)", "mojeekbot"),
        C.bot("Mozilla/5.0 (compatible; Yeti/1.1; +http://naver.me/bot)", "yeti"),
        C.bot("Mozilla/5.0 (compatible; Linux x86_64; Mail.RU_Bot/2.0; +http://go.mail.ru/help/robots)", "mail"),
        C.bot("Sogou web spider/4.0(+http://www.sogou.com/docs/help/webmasters.htm#07)", "sogou"),
        C.bot("Screaming Frog SEO Spider/5.1", "screaming"),
        C.bot("ia_archiver (+http://www.alexa.com/site/help/webmasters; crawler@alexa.com)", "ia"),
        C.bot("Mozilla/5.0 (compatible; archive.org_bot +http://www.archive.org/details/archive.org_bot)", "archive"),
        C.bot("Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.1 (KHTML, like Gecko) Chrome/21.0.1180.89 Safari/537.1; 360Spider", "360spider"),
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/45.0.2454.101 Safari/537.36 SWIMGBot", "swimgbot"),
        C.bot("W3C_Validator/1.3", "w3c"),
        C.bot("AddThis.com robot tech.support@clearspring.com", "addthis"),
        C.bot("Mozilla/5.0 (compatible; Miniflux/2.0.10; +https://miniflux.net)", "miniflux"),
        C.bot("Mozilla/5.0 (compatible; SMTBot/1.0; +http://www.similartech.com/smtbot)", "smtbot"),
        C.bot("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/68.0.3440.75 Safari/537.36 (compatible; SMTBot/1.0; +http://www.similartech.com/smtbot)", "smtbot"),
    ]

    // MARK: HTTP libraries, tools, monitors, headless browsers

    static let tools: [UserAgentCase] = [
        C.bot("curl/7.29.0", "curl"),
        C.bot("curl/7.64.1", "curl"),
        C.bot("curl/8.5.0", "curl"),
        C.bot("curl", "curl"),
        C.bot("Wget/1.14 (linux-gnu)", "wget"),
        C.bot("Wget/1.20.3 (linux-gnu)", "wget"),
        C.bot("Wget/1.21.4", "wget"),
        C.bot("python-requests/2.9.2", "python"),
        C.bot("python-requests/2.22.0", "python"),
        C.bot("python-requests/2.31.0", "python"),
        C.bot("Python-urllib/2.7", "python"),
        C.bot("Python-urllib/3.7", "python"),
        C.bot("Python/3.11 aiohttp/3.9.1", "python"),
        C.bot("python-httpx/0.27.0", "python"),
        C.bot("Scrapy/1.0.3 (+http://scrapy.org)", "scrapy"),
        C.bot("Go-http-client/1.1", "go-http"),
        C.bot("Go-http-client/2.0", "go-http"),
        C.bot("okhttp/2.7.5", "okhttp"),
        C.bot("okhttp/3.12.1", "okhttp"),
        C.bot("okhttp/4.12.0", "okhttp"),
        C.bot("Java/1.8.0_151", "java"),
        C.bot("Java/17.0.2", "java"),
        C.bot("Apache-HttpClient/4.5.2 (Java/1.8.0_151)", "java"),
        C.bot("Apache-HttpClient/4.5.7 (Java/11.0.3)", "java"),
        C.bot("Apache-HttpClient/4.2.3 (java 1.5)", "java"),
        C.bot("Jersey/2.25.1 (HttpUrlConnection 1.8.0_141)", "java"),
        C.bot("node-fetch/1.0 (+https://github.com/bitinn/node-fetch)", "node"),
        C.bot("axios/0.18.0", "axios"),
        C.bot("axios/1.6.7", "axios"),
        C.bot("PostmanRuntime/7.36.1", "postman"),
        C.bot("PostmanRuntime/7.29.2", "postman"),
        C.bot("insomnia/2023.5.8", "insomnia"),
        C.bot("HTTPie/3.2.2", "httpie"),
        C.bot("libwww-perl/6.67", "perl"),
        C.bot("W3C-checklink/4.5 [4.160] libwww-perl/5.823", "perl"),
        C.bot("Dart/3.2 (dart:io)", "dart"),
        C.bot("Dalvik/2.1.0 (Linux; U; Android 13; SM-A536B Build/TP1A.220624.014)", "dalvik"),
        C.bot("Dalvik/2.1.0 (Linux; U; Android 8.0.0; SM-G930V Build/R16NW)", "dalvik"),
        C.bot("MobileSafari/604.1 CFNetwork/1125.2 Darwin/19.4.0", "cfnetwork"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/74.0.3729.169 Safari/537.36", "headlesschrome"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/120.0.6099.109 Safari/537.36", "headlesschrome"),
        C.bot("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/119.0.0.0 Safari/537.36", "headlesschrome"),
        C.bot("Mozilla/5.0 (Unknown; Linux x86_64) AppleWebKit/538.1 (KHTML, like Gecko) PhantomJS/2.1.1 Safari/538.1", "phantomjs"),
        C.bot("Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse", "lighthouse"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/74.0.3694.0 Safari/537.36 Chrome-Lighthouse", "lighthouse"),
        C.bot("Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)", "uptimerobot"),
        C.bot("Mozilla/5.0 (compatible; pingbot/2.0; +http://www.pingdom.com/)", "pingdom"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Ubuntu Chromium/59.0.3071.109 Chrome/59.0.3071.109 Safari/537.36 PingdomPageSpeed/1.0 (pingbot/2.0; +http://www.pingdom.com/)", "pingdom"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/103.0.0.0 Safari/537.36 StatusCake", "statuscake"),
        C.bot("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36 DatadogSynthetics", "datadog"),
        C.bot("Zabbix", "zabbix"),
        C.bot("Mozilla/5.0 zgrab/0.x", "zgrab"),
        C.bot("Mozilla/5.0 (compatible; Nmap Scripting Engine; https://nmap.org/book/nse.html)", "nmap"),
    ]

    // MARK: iOS

    static let iOS: [UserAgentCase] = [
        // Safari, many versions
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "18.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/26.0 Mobile/15E148 Safari/604.1", "18.6"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", "17.0"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1", "17.5.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1", "16.6"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 15_6_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6.1 Mobile/15E148 Safari/604.1", "15.6.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 14_8 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Mobile/15E148 Safari/604.1", "14.8"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 13_2_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0.3 Mobile/15E148 Safari/604.1", "13.2.3"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 12_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1", "12.4.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 11_0 like Mac OS X) AppleWebKit/604.1.38 (KHTML, like Gecko) Version/11.0 Mobile/15A372 Safari/604.1", "11.0"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_1 like Mac OS X) AppleWebKit/603.1.30 (KHTML, like Gecko) Version/10.0 Mobile/14E304 Safari/602.1", "10.3.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 9_1 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13B143 Safari/601.1", "9.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 8_3 like Mac OS X) AppleWebKit/600.1.4 (KHTML, like Gecko) Version/8.0 Mobile/12F70 Safari/600.1.4", "8.3"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Version/7.0 Mobile/11A465 Safari/9537.53", "7.0"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 6_0 like Mac OS X) AppleWebKit/536.26 (KHTML, like Gecko) Version/6.0 Mobile/10A5376e Safari/8536.25", "6.0"),
        C.iOS("Mozilla/5.0 (iPhone; U; CPU iPhone OS 4_1 like Mac OS X; en-us) AppleWebKit/532.9 (KHTML, like Gecko) Version/4.0.5 Mobile/8B117 Safari/6531.22.7", "4.1"),
        // iPad and iPod touch
        C.iOS("Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1", "17.0", "ipad"),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1", "16.6", "ipad"),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 12_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "12.2", "ipad"),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 9_3_5 like Mac OS X) AppleWebKit/601.1.46 (KHTML, like Gecko) Version/9.0 Mobile/13G36 Safari/601.1", "9.3.5", "ipad"),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/116.0.5845.177 Mobile/15E148 Safari/604.1", "16.6", "ipad"),
        C.iOS("Mozilla/5.0 (iPod touch; CPU iPhone OS 12_5_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1", "12.5.7", "ipod"),
        C.iOS("Mozilla/5.0 (iPod; U; CPU iPhone OS 4_3_3 like Mac OS X; en-us) AppleWebKit/533.17.9 (KHTML, like Gecko) Version/5.0.2 Mobile/8J2 Safari/6533.18.5", "4.3.3", "ipod"),
        // Other browsers on iOS
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1", "17.2"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/114.0.5735.99 Mobile/15E148 Safari/604.1", "16.5"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/120.0 Mobile/15E148 Safari/605.1.15", "17.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 14_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/32.0 Mobile/15E148 Safari/605.1.15", "14.4"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 EdgiOS/120.0.2210.126 Mobile/15E148 Safari/605.1.15", "17.2"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 12_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) OPiOS/16.0.14.122053 Mobile/15E148 Safari/9537.53", "12.1"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Mobile/15E148 DuckDuckGo/7 Safari/605.1.15", "17.3"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 YaBrowser/23.11.6.440.10 SA/3 Mobile/15E148 Safari/604.1", "17.1.2"),
        // Google app: an in-app browser that does hand off universal links
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/297.0.595526294 Mobile/15E148 Safari/604.1", "17.2.1", app: "google"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) GSA/279.0.559163158 Mobile/15E148 Safari/604.1", "16.6", app: "google"),
        // Facebook, Messenger, Instagram, Threads
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/444.0.0.36.110;FBBV/541634939;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1.2;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/544311488]", "17.1.2", app: "facebook", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone12,1;FBMD/iPhone;FBSN/iOS;FBSV/16.6;FBSS/2;FBID/phone;FBLC/en_US;FBOP/5]", "16.6", app: "facebook", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 12_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone10,6;FBMD/iPhone;FBSN/iOS;FBSV/12.4.1;FBSS/3;FBCR/AT&T;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]", "12.4.1", app: "facebook", blocks: true),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 15_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPad7,11;FBMD/iPad;FBSN/iPadOS;FBSV/15.7;FBSS/2;FBID/tablet;FBLC/en_US;FBOP/5]", "15.7", "ipad", app: "facebook", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 10_3_2 like Mac OS X) AppleWebKit/603.2.4 (KHTML, like Gecko) Mobile/14F89 [FBAN/MessengerForiOS;FBAV/129.0.0.44.91;FBBV/66845013;FBDV/iPhone9,1;FBMD/iPhone;FBSN/iOS;FBSV/10.3.2;FBSS/2;FBCR/Carrier;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]", "10.3.2", app: "messenger", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/MessengerForiOS;FBAV/461.0.0.26.106;FBBV/596640960;FBDV/iPhone15,2;FBMD/iPhone;FBSN/iOS;FBSV/17.5;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5]", "17.5", app: "messenger", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.0.34.111 (iPhone15,3; iOS 17_1_1; en_US; en; scale=3.00; 1290x2796; 531442004)", "17.1.1", app: "instagram", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 296.0.0.18.111 (iPhone12,1; iOS 16_6; en_GB; en-GB; scale=2.00; 828x1792; 502424245)", "16.6", app: "instagram", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Barcelona 301.0.0.27.103 (iPhone14,2; iOS 17_0; en_US; en; scale=3.00; 1170x2532; 519946398)", "17.0", app: "threads", blocks: true),
        // TikTok
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_2_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 BytedanceWebview/d8a21c6 musical_ly_32.8.0 JsSdk/2.0 NetType/WIFI Channel/App ByteLocale/ar Region/SA", "17.2.1", app: "tiktok", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 15_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 musical_ly_25.1.1 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/US ByteFullLocale/en isDarkMode/0 WKWebView/1 BytedanceWebview/d8a21c6 FalconTag/", "15.5", app: "tiktok", blocks: true),
        C.iOS("Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1 musical_ly_34.0.0 JsSdk/2.0 NetType/WIFI Channel/App Store ByteLocale/en Region/IE isDarkMode/0 WKWebView/1 RevealType/Dialog", "16.6", "ipad", app: "tiktok", blocks: true),
        // LinkedIn, Snapchat, X, WeChat, LINE, Pinterest
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8962", "17.5.1", app: "linkedin", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 18_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari/604.1 [LinkedInApp]/9.78.4909", "18.7", app: "linkedin", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.80.0.40 (like Safari/8617.2.4.10.8)", "17.4", app: "snapchat", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 13_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/8.8", "13.3", app: "twitter", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 7_0 like Mac OS X) AppleWebKit/537.51.1 (KHTML, like Gecko) Mobile/11A465 Twitter for iPhone", "7.0", app: "twitter", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.44(0x18002c2d) NetType/WIFI Language/zh_CN", "17.1", app: "wechat", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 18_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.50(0x1800323d) NetType/WIFI Language/zh_CN", "18.6", app: "wechat", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.16.0", "16.6", app: "line", blocks: true),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]", "17.0", app: "pinterest", blocks: true),
        // In-app browsers whose universal-link behaviour is not established
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 16_1_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 KAKAOTALK 10.0.7", "16.1.1", app: "kakaotalk"),
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 18_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 NAVER(inapp; search; 2000; 12.10.2; 15PRO)", "18.5", app: "naver"),
        // An app's plain WKWebView, an app's own client, and media playback
        C.iOS("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", "17.0"),
        C.iOS("Quora 3.1.1 rv:136 (iPhone; iPhone OS 7.0.2; en_US)", "7.0.2"),
        C.iOS("AppleCoreMedia/1.0.0.20E252 (iPhone; U; CPU OS 16_4_1 like Mac OS X; en_us)", "16.4.1"),
    ]

    // MARK: Android

    static let android: [UserAgentCase] = [
        // Chrome on phones and tablets, including brand names that contain "bot"
        C.android("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", "10"),
        C.android("Mozilla/5.0 (Linux; Android 14; Pixel 8 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.6167.101 Mobile Safari/537.36", "14"),
        C.android("Mozilla/5.0 (Linux; Android 13; SM-S908B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/112.0.0.0 Mobile Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 11; Redmi Note 8 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36", "11"),
        C.android("Mozilla/5.0 (Linux; Android 12; M2101K9AG) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", "12"),
        C.android("Mozilla/5.0 (Linux; Android 10; CPH2035) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.114 Mobile Safari/537.36", "10"),
        C.android("Mozilla/5.0 (Linux; Android 10; CUBOT X30) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/129.0.0.0 Mobile Safari/537.36", "10"),
        C.android("Mozilla/5.0 (Linux; Android 11; CUBOT NOTE 20 Pro) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/98.0 Mobile Safari/537.36", "11"),
        C.android("Mozilla/5.0 (Linux; Android 11; CUBOT NOTE 20) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/96.0.4664.104 Mobile Safari/537.36", "11"),
        C.android("Mozilla/5.0 (Linux; Android 9; CUBOT_X19 Build/PPR1.180610.011) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/88.0.4324.181 Mobile Safari/537.36", "9"),
        C.android("Mozilla/5.0 (Linux; Android 13; CUBOT KingKong 9) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 6.0.1; SM-G920V Build/MMB29K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.98 Mobile Safari/537.36", "6.0.1"),
        C.android("Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36", "7.0"),
        C.android("Mozilla/5.0 (Linux; Android 8.0.0; SM-G960F Build/R16NW) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/62.0.3202.84 Mobile Safari/537.36", "8.0.0"),
        C.android("Mozilla/5.0 (Linux; Android 4.4.2; Nexus 4 Build/KOT49H) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/34.0.1847.114 Mobile Safari/537.36", "4.4.2"),
        C.android("Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 9; KFMAWI) AppleWebKit/537.36 (KHTML, like Gecko) Silk/121.3.1 like Chrome/121.0.6167.180 Safari/537.36", "9"),
        // Stock browsers of older Android versions
        C.android("Mozilla/5.0 (Linux; U; Android 4.0.3; ko-kr; LG-L160L Build/IML74K) AppleWebkit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30", "4.0.3"),
        C.android("Mozilla/5.0 (Linux; U; Android 2.3.6; en-us; Nexus S Build/GRK39F) AppleWebKit/533.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/533.1", "2.3.6"),
        // Samsung Internet
        C.android("Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/23.0 Chrome/115.0.0.0 Mobile Safari/537.36", "14"),
        C.android("Mozilla/5.0 (Linux; Android 13; SAMSUNG SM-A546B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/21.0 Chrome/110.0.5481.154 Mobile Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 9; SAMSUNG SM-T720) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/10.1 Chrome/71.0.3578.99 Safari/537.36", "9"),
        // Firefox, Edge, Opera, Yandex, DuckDuckGo, UC, Huawei, Xiaomi
        C.android("Mozilla/5.0 (Android 14; Mobile; rv:123.0) Gecko/123.0 Firefox/123.0", "14"),
        C.android("Mozilla/5.0 (Android 10; Mobile; rv:68.0) Gecko/68.0 Firefox/68.0", "10"),
        C.android("Mozilla/5.0 (Android 13; Tablet; rv:121.0) Gecko/121.0 Firefox/121.0", "13"),
        C.android("Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36 EdgA/120.0.0.0", "10"),
        C.android("Mozilla/5.0 (Linux; Android 10; VOG-L29) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 OPR/79.2.4195.76686", "10"),
        C.android("Opera/9.80 (Android; Opera Mini/36.2.2254/119.132; U; id) Presto/2.12.423 Version/12.16", nil),
        C.android("Opera/9.80 (Android; Opera Mini/7.5.33361/32.1024; U; en) Presto/2.8.119 Version/11.10", nil),
        C.android("Mozilla/5.0 (Linux; arm_64; Android 12; SM-G991B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.5993.118 YaBrowser/23.11.3.112.00 SA/3 Mobile Safari/537.36", "12"),
        C.android("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.0.0 Mobile DuckDuckGo/5 Safari/537.36", "14"),
        C.android("Mozilla/5.0 (Linux; U; Android 10; en-US; RMX2185 Build/QP1A.190711.020) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/78.0.3904.108 UCBrowser/13.4.0.1306 Mobile Safari/537.36", "10"),
        C.android("Mozilla/5.0 (Linux; Android 10; HarmonyOS; ELS-NX9; HMSCore 6.11.0.302) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.88 HuaweiBrowser/14.0.1.300 Mobile Safari/537.36", "10"),
        C.android("Mozilla/5.0 (Linux; U; Android 12; en-gb; 2201117TG Build/SKQ1.211006.001) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/100.0.4896.127 Mobile Safari/537.36 XiaoMi/MiuiBrowser/13.28.0-gn", "12"),
        // Android System WebView inside ordinary apps
        C.android("Mozilla/5.0 (Linux; Android 13; Pixel 6 Build/TQ3A.230805.001; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/115.0.5790.166 Mobile Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 5.1.1; Nexus 5 Build/LMY48B; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/43.0.2357.65 Mobile Safari/537.36", "5.1.1"),
        C.android("Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/126.0.6478.134 Mobile Safari/537.36", "14"),
        // Google app
        C.android("Mozilla/5.0 (Linux; Android 8.0.0; ATU-L31 Build/HUAWEIATU-L31; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/88.0.4324.152 Mobile Safari/537.36 GSA/12.2.12.23.arm64", "8.0.0", app: "google"),
        // Facebook, Messenger, Instagram, Threads
        C.android("Mozilla/5.0 (Linux; Android 14; SM-S918B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.64 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/453.0.0.48.110;]", "14", app: "facebook", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 10; SM-A505F Build/QP1A.190711.020; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/86.0.4240.185 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/292.0.0.50.119;]", "10", app: "facebook", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.105 Mobile Safari/537.36 [FB_IAB/Orca-Android;FBAV/389.0.0.13.107;]", "12", app: "messenger", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 13; SM-A536B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.193 Mobile Safari/537.36 Instagram 309.1.0.41.113 Android (33/13; 450dpi; 1080x2177; samsung; SM-A536B; a53x; s5e8825; en_GB; 541635890)", "13", app: "instagram", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 11; Redmi Note 9 Pro Build/RKQ1.200826.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/112.0.5615.135 Mobile Safari/537.36 Instagram 280.0.0.18.114 Android (30/11; 440dpi; 1080x2180; Xiaomi/Redmi; Redmi Note 9 Pro; joyeuse; qcom; en_US; 468695792)", "11", app: "instagram", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/AP1A.240305.019.A1; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/122.0.6261.119 Mobile Safari/537.36 Barcelona 321.0.0.37.111 Android (34/14; 420dpi; 1080x2400; Google/google; Pixel 7; panther; panther; en_US; 576880010)", "14", app: "threads", blocks: true),
        // TikTok
        C.android("Mozilla/5.0 (Linux; Android 13; SM-A546E Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36 trill_2023008030 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/trill app_version/30.8.3 ByteLocale/es ByteFullLocale/es Region/CO Spark/1.4.6.3-bugfix AppVersion/30.8.3 BytedanceWebview/d8a21c6", "13", app: "tiktok", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 12; SM-G991B Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/108.0.5359.128 Mobile Safari/537.36 musical_ly_2022803040 JsSdk/1.0 NetType/WIFI Channel/googleplay AppName/musical_ly app_version/28.3.4 ByteLocale/en ByteFullLocale/en Region/US BytedanceWebview/d8a21c6", "12", app: "tiktok", blocks: true),
        // LinkedIn, Snapchat, X, WeChat, LINE, Pinterest
        C.android("Mozilla/5.0 (Linux; Android 16; SM-A176U Build/BP2A.250605.031; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/151.0.7922.85 Mobile Safari/537.36 [LinkedInApp]/2.312.70", "16", app: "linkedin", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 13; SM-G781B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile Safari/537.36 Snapchat/12.49.0.45 (SM-G781B; Android 13#G781BXXU7GWH1#33; gzip; )", "13", app: "snapchat", blocks: true),
        C.android("TwitterAndroid/9.86.0-release.0 (23680000-r-0) (Android 10; Google Pixel 3; Build/QP1A.190711.020; wv)", "10", app: "twitter", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 12; PFDM00 Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/107.0.5304.141 Mobile Safari/537.36 XWEB/5023 MMWEBSDK/20230202 MMWEBID/3366 MicroMessenger/8.0.33.2320(0x2800213B) WeChat/arm64 Weixin NetType/WIFI Language/zh_CN ABI/arm64", "12", app: "wechat", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 13; SO-51C Build/64.1.E.0.203; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/117.0.5938.153 Mobile Safari/537.36 Line/13.16.1/IAB", "13", app: "line", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 11; SM-A202F Build/RP1A.200720.012; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/87.0.4280.141 Mobile Safari/537.36 [Pinterest/Android]", "11", app: "pinterest", blocks: true),
        C.android("Mozilla/5.0 (Linux; Android 11; SM-A515F Build/RP1A.200720.012; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.0.0 Mobile Safari/537.36 Pinterest for Android/6.58.4 (SM-A515F; 11)", "11", app: "pinterest", blocks: true),
        C.android("Pinterest for Android/10.28.2 (lisbon; 11)", nil, app: "pinterest", blocks: true),
        // Messengers whose universal-link behaviour is not established
        C.android("Mozilla/5.0 (Linux; Android 10; Redmi Note 7 Build/QKQ1.190920.002; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/81.0.4044.138 Mobile Safari/537.36 Viber/14.7.0.4", "10", app: "viber"),
        C.android("Mozilla/5.0 (Linux; Android 9; BND-L21 Build/HONORBND-L21; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/83.0.4103.96 Mobile Safari/537.36 Viber/13.1.0.4", "9", app: "viber"),
        C.android("Mozilla/5.0 (Linux; Android 14; SM-S928B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/125.0.6422.165 Mobile Safari/537.36 Telegram-Android/10.14.5 (Samsung SM-S928B; Android 14; SDK 34; HIGH)", "14", app: "telegram"),
        C.android("Mozilla/5.0 (Linux; Android 14; SM-S918N Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36;KAKAOTALK 2410370", "14", app: "kakaotalk"),
    ]

    // MARK: Desktop

    static let desktop: [UserAgentCase] = [
        // Chrome
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/50.0.2661.102 Safari/537.36"),
        C.desktop("Mozilla/5.0 (Windows NT 6.3; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"),
        C.desktop("Mozilla/5.0 (X11; CrOS armv7l 13597.84.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/88.0.4324.186 Safari/537.36"),
        // Safari on macOS (and iPadOS asking for the desktop site, which looks the same)
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2.1 Safari/605.1.15"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_14_6) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/14.1.2 Safari/605.1.15"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_9_3) AppleWebKit/537.75.14 (KHTML, like Gecko) Version/7.0.3 Safari/7046A194A"),
        // Firefox
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0"),
        C.desktop("Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0"),
        C.desktop("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"),
        C.desktop("Mozilla/5.0 (X11; Fedora; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0"),
        C.desktop("Mozilla/5.0 (X11; FreeBSD amd64; rv:109.0) Gecko/20100101 Firefox/115.0"),
        C.desktop("Mozilla/5.0 (Windows; U; Windows NT 5.1; en-US; rv:1.9.2.13) Gecko/20101203 Firefox/3.6.13"),
        // Edge, Internet Explorer
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/121.0.0.0 Safari/537.36 Edg/121.0.0.0"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19582"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko"),
        C.desktop("Mozilla/5.0 (compatible; MSIE 9.0; Windows NT 6.1; Trident/5.0)"),
        C.desktop("Mozilla/4.0 (compatible; MSIE 6.0; Windows NT 5.1; SV1)"),
        // Opera, Vivaldi, Yandex Browser
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Safari/537.36 OPR/105.0.0.0"),
        C.desktop("Opera/9.80 (Windows NT 6.1; WOW64) Presto/2.12.388 Version/12.18"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Vivaldi/6.5.3206.53"),
        C.desktop("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/118.0.0.0 Safari/537.36 Vivaldi/6.4.3160.47"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 YaBrowser/24.6.0.0 Yowser/2.5 Safari/537.36"),
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 YaBrowser/24.1.0.0 Safari/537.36"),
        // Desktop apps built on Electron (Slack and Discord apps are not their bots)
        C.desktop("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Slack/4.36.134 Chrome/120.0.6099.56 Electron/28.0.0 Safari/537.36 Sonic Slack_SSB/4.36.134"),
        C.desktop("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) discord/1.0.9028 Chrome/120.0.6099.291 Electron/28.2.10 Safari/537.36"),
    ]

    // MARK: Everything else

    static let other: [UserAgentCase] = [
        // Smart TVs and streaming devices
        C.other("Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 (KHTML, like Gecko) 76.0.3809.146/6.0 TV Safari/537.36"),
        C.other("Mozilla/5.0 (SMART-TV; LINUX; Tizen 5.5) AppleWebKit/537.36 (KHTML, like Gecko) 69.0.3497.106.1/5.5 TV Safari/537.36"),
        C.other("Mozilla/5.0 (SMART-TV; Linux; Tizen 2.4.0) AppleWebkit/538.1 (KHTML, like Gecko) SamsungBrowser/1.1 TV Safari/538.1"),
        C.other("Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.79 Safari/537.36 WebAppManager"),
        C.other("Mozilla/5.0 (Web0S; Linux/SmartTV) AppleWebKit/538.2 (KHTML, like Gecko) Large Screen WebAppManager Safari/538.2"),
        C.other("Mozilla/5.0 (Linux; Android 11; SHIELD Android TV Build/RQ1A.210105.003) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/99.0.4844.73 Safari/537.36"),
        C.other("Mozilla/5.0 (Linux; Android 7.1.2; AFTMM Build/NS6271; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/70.0.3538.110 Mobile Safari/537.36"),
        C.other("Mozilla/5.0 (Linux; Android 9; AFTKA Build/PS7633.3445N; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/108.0.5359.160 Mobile Safari/537.36"),
        C.other("Mozilla/5.0 (X11; Linux armv7l) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/90.0.4430.225 Safari/537.36 CrKey/1.56.500000"),
        C.other("Mozilla/5.0 (Linux; Andr0id 9; BRAVIA 4K UR2 Build/PTT1.190515.001.S52) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/85.0.4183.101 Mobile Safari/537.36 OPR/46.0.2207.0 OMI/4.21.0.273.DIA6.149 Model/Sony-BRAVIA-4K-UR2"),
        C.other("HbbTV/1.2.1 (;Panasonic;VIERA 2013;3.672;4101-0003 0002-0000;)"),
        C.other("Roku/DVP-9.10 (519.10E04111A)"),
        C.other("AppleCoreMedia/1.0.0.19J346 (Apple TV; U; CPU OS 15_0 like Mac OS X; en_us)"),
        C.other("AppleTV11,1/11.1"),
        // Consoles and VR
        C.other("Mozilla/5.0 (PlayStation; PlayStation 5/2.26) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.0 Safari/605.1.15"),
        C.other("Mozilla/5.0 (PlayStation 4 8.52) AppleWebKit/605.1.15 (KHTML, like Gecko)"),
        C.other("Mozilla/5.0 (PlayStation Vita 3.74) AppleWebKit/537.73 (KHTML, like Gecko) Silk/3.2"),
        C.other("Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox One) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/48.0.2564.82 Safari/537.36 Edge/20.02"),
        C.other("Mozilla/5.0 (Windows NT 10.0; Win64; x64; Xbox; Xbox Series X) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/48.0.2564.82 Safari/537.36 Edge/20.02"),
        C.other("Mozilla/5.0 (Nintendo Switch; WifiWebAuthApplet) AppleWebKit/606.4 (KHTML, like Gecko) NF/6.0.1.15.4 NintendoBrowser/5.1.0.20393"),
        C.other("Mozilla/5.0 (Nintendo 3DS; U; ; en) Version/1.7412.EU"),
        C.other("Mozilla/5.0 (X11; Linux x86_64; Quest 2) AppleWebKit/537.36 (KHTML, like Gecko) OculusBrowser/23.2.0.4.49.401374055 SamsungBrowser/4.0 Chrome/104.0.5112.111 VR Safari/537.36"),
        // E-readers, feature phones and mobile platforms without app links
        C.other("Mozilla/5.0 (X11; U; Linux armv7l like Android; en-us) AppleWebKit/531.2+ (KHTML, like Gecko) Version/5.0 Safari/531.2+ Kindle/3.0+"),
        C.other("Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 635) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537"),
        C.other("Mozilla/5.0 (Windows Phone 10.0; Android 6.0.1; Microsoft; Lumia 950) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/52.0.2743.116 Mobile Safari/537.36 Edge/15.14977"),
        C.other("Mozilla/5.0 (Mobile; LYF/F300B/LYF-F300B-001-01-15-130718-i; Android; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5"),
        C.other("Mozilla/5.0 (BB10; Touch) AppleWebKit/537.1+ (KHTML, like Gecko) Version/10.0.0.1337 Mobile Safari/537.1+"),
        C.other("BlackBerry9000/4.6.0.167 Profile/MIDP-2.0 Configuration/CLDC-1.1 VendorID/102"),
        C.other("Nokia6820/2.0 (4.83) Profile/MIDP-1.0 Configuration/CLDC-1.0"),
        C.other("Opera/9.80 (J2ME/MIDP; Opera Mini/9.80 (S60; SymbOS; Opera Mobi/23.348; U; en) Presto/2.5.25 Version/10.54"),
        C.other("Mozilla/5.0 (Phone; OpenHarmony 4.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/114.0.0.0 Safari/537.36 ArkWeb/4.1.6.1 Mobile HuaweiBrowser/5.0.4.300"),
        C.other("Mozilla/5.0 (Mobile; rv:26.0) Gecko/26.0 Firefox/26.0"),
        C.other("Mozilla/5.0 (Linux; U; Sailfish 3.0; Mobile; rv:45.0) Gecko/45.0 Firefox/45.0 SailfishBrowser/1.0"),
        // Headers that name no platform
        C.other("Mozilla/5.0"),
        C.other("Amazon CloudFront"),
        C.other("-"),
        // Feature phones that name their browser and no platform Ferry knows
        C.other("Mozilla/4.0 SonyEricssonK850iv/R1CA"),
        C.other("Mozilla/4.08 (N902i;FOMA;c300;TB;W24H12)"),
        C.other("Mozilla/4.1 (compatible; Teleca Q7; BMP 1.0.1; U; en) 240X400 LG-AN510"),
        C.other("DoCoMo/2.0 P903i(c100;TB;W24H12)"),
        C.other("0HuaweiU5705/Huawei/1.0/B100 Browser/Obigo-Browser/Q05A MMS/Obigo-MMS/Q05A SyncML/HW-SyncML/1.0 Java/HWJa/1.0 Profile/MIDP-2.0 Configuration/CLDC-1.1 Player/QTV"),
    ]

    // MARK: Programs that say what they are and nothing a browser says

    static let unidentified: [UserAgentCase] = [
        C.bot("Zeno", "unidentified"),
        C.bot("Seobility", "unidentified"),
        C.bot("Castopod/1.0", "unidentified"),
        C.bot("Mozilla/5.0 (compatible; Dormouse/1.0)", "unidentified"),
        C.bot("collectd/5.5.1", "unidentified"),
        C.bot("Grafana/11.1.0", "unidentified"),
        C.bot("${jndi:ldap://${hostName}.useragent.example.oast.live}", "unidentified"),
        // A phone whose model has a crawler's word in it, and one named after a scanner.
        C.android("Mozilla/5.0 (Linux; Android 7.0; M bot 54) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/78.0.3904.96 Mobile Safari/537.36", "7.0"),
        C.android("Mozilla/5.0 (Linux; Android 13; Spider 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", "13"),
        C.android("Mozilla/5.0 (Linux; Android 8.0.0; Expanse) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/86.0.4240.99 Mobile Safari/537.36", "8.0.0"),
        C.bot("Expanse, a Palo Alto Networks company, searches across the global IPv4 space multiple times per day to identify customers' presences on the Internet.", "expanse"),
        // The same word after the model is a crawler's.
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36 (compatible; ExampleBot/1.0)", "generic"),
        // Monitors in a browser's clothes.
        C.bot("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/109.0.0.0 Safari/537.36 CloudflareObservatory/1.0", "cloudflare"),
        C.bot("Mozilla/5.0 (Linux; Android 6.0.1; Moto G (4) Build/MPJ24.139-64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/65.0.3325.146 Mobile Safari/537.36 PTST/180829.1", "webpagetest"),
        // A library that names a platform.
        C.bot("URL/Emacs Emacs/28.2 (TTY; x86_64-pc-linux-gnu)", "emacs"),
    ]

    static let all: [UserAgentCase] = linkPreviewBots + crawlers + tools + iOS + android + desktop + other + unidentified
}

@Suite("UserAgentClassifier", .takesTurns)
struct UserAgentClassifierTests {
    let classifier = UserAgentClassifier()

    private func check(_ testCase: UserAgentCase) {
        let actual = classifier.classify(testCase.userAgent)
        #expect(actual == testCase.expected, "User-Agent: \(testCase.userAgent)")
    }

    // MARK: Corpus

    @Test("Link-preview fetchers", arguments: UserAgentCorpus.linkPreviewBots)
    func linkPreviewBots(_ testCase: UserAgentCase) { check(testCase) }

    @Test("Crawlers and AI agents", arguments: UserAgentCorpus.crawlers)
    func crawlers(_ testCase: UserAgentCase) { check(testCase) }

    @Test("HTTP libraries, monitors and headless browsers", arguments: UserAgentCorpus.tools)
    func tools(_ testCase: UserAgentCase) { check(testCase) }

    @Test("iOS browsers and in-app browsers", arguments: UserAgentCorpus.iOS)
    func iOS(_ testCase: UserAgentCase) { check(testCase) }

    @Test("Android browsers and in-app browsers", arguments: UserAgentCorpus.android)
    func android(_ testCase: UserAgentCase) { check(testCase) }

    @Test("Desktop browsers", arguments: UserAgentCorpus.desktop)
    func desktop(_ testCase: UserAgentCase) { check(testCase) }

    @Test("TVs, consoles and other platforms", arguments: UserAgentCorpus.other)
    func other(_ testCase: UserAgentCase) { check(testCase) }

    @Test("Programs without a browser's marks, and phones named like bots", arguments: UserAgentCorpus.unidentified)
    func unidentified(_ testCase: UserAgentCase) { check(testCase) }

    @Test("The corpus is large and has no duplicates")
    func corpusSize() {
        let all = UserAgentCorpus.all
        #expect(all.count >= 250)
        #expect(Set(all.map(\.userAgent)).count == all.count)
    }

    @Test("Every in-app browser that blocks universal links is on a mobile platform")
    func blockingImpliesMobileInApp() {
        for testCase in UserAgentCorpus.all where testCase.expected.blocksUniversalLinks {
            #expect(testCase.expected.isMobile)
            #expect(testCase.expected.inAppBrowser != nil)
        }
    }

    // MARK: Look-alikes

    @Test("Browsers named after search engines are not their crawlers")
    func browsersAreNotCrawlers() {
        let yandexBrowser = classifier.classify("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 YaBrowser/24.6.0.0 Yowser/2.5 Safari/537.36")
        let yandexBot = classifier.classify("Mozilla/5.0 (compatible; YandexBot/3.0; +http://yandex.com/bots)")
        #expect(yandexBrowser.platform == .desktop)
        #expect(yandexBot.botName == "yandex")

        let duckDuckGoBrowser = classifier.classify("Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.0.0 Mobile DuckDuckGo/5 Safari/537.36")
        let duckDuckBot = classifier.classify("DuckDuckBot/1.1; (+http://duckduckgo.com/duckduckbot.html)")
        #expect(duckDuckGoBrowser.platform == .android)
        #expect(duckDuckBot.botName == "duckduckgo")
    }

    @Test("Apps are told apart from the preview fetchers of the same company")
    func appsAreNotTheirFetchers() {
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.16.0").inAppBrowser == "line")
        #expect(classifier.classify("facebookexternalhit/1.1;line-poker/1.0").botName == "line")
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.80.0.40 (like Safari/8617.2.4.10.8)").inAppBrowser == "snapchat")
        #expect(classifier.classify("Mozilla/5.0 (compatible; Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots)").botName == "snapchat")
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]").platform == .iOS)
        #expect(classifier.classify("Pinterest/0.2 (+http://www.pinterest.com/bot.html)").botName == "pinterest")
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 17_5_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8962").platform == .iOS)
        #expect(classifier.classify("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)").botName == "linkedin")
    }

    @Test("Device names that contain \"bot\" or \"robot\" do not make a phone a bot")
    func deviceNamesAreNotBots() {
        // Illustrative model names; the CUBOT headers in the corpus are real ones.
        let robotModel = classifier.classify("Mozilla/5.0 (Linux; Android 12; Robot X1 Build/SP1A.210812.016) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36")
        #expect(robotModel == ClientInfo(platform: .android, osVersion: "12"))
        let cubotWithCrawler = classifier.classify("Mozilla/5.0 (Linux; Android 11; cubot note 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36 fetchbot/1.0")
        #expect(cubotWithCrawler.platform == .bot)
    }

    // MARK: Empty and hostile input

    @Test("Missing and blank headers are .other", arguments: [nil, "", " ", "\t", "\"\"", "null", "undefined"] as [String?])
    func missingHeader(_ userAgent: String?) {
        #expect(classifier.classify(userAgent) == ClientInfo(platform: .other))
    }

    @Test("Hostile input is classified without crashing")
    func hostileInput() {
        let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"

        // 10 KB headers.
        #expect(classifier.classify(String(repeating: "A", count: 10_240)) == ClientInfo(platform: .bot, botName: "unidentified"))
        #expect(classifier.classify(String(repeating: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) ", count: 240)).platform == .desktop)
        // Beyond the scanned prefix: what is read says nothing of a browser either.
        #expect(classifier.classify(String(repeating: "ab", count: 6_000) + "Googlebot").botName == "unidentified")
        #expect(classifier.classify(String(repeating: "bot", count: 4_000)).platform == .bot)
        #expect(classifier.classify(String(repeating: "\u{1F600}", count: 3_000)).botName == "unidentified")

        // Control characters, NUL bytes, CR/LF injection.
        #expect(classifier.classify("Mozilla/5.0 (Windows NT 10.0;\u{0} Win64; x64)\r\n\u{1}\u{7F} AppleWebKit/537.36").platform == .desktop)
        #expect(classifier.classify("\u{0}\u{0}\u{0}").platform == .other)
        #expect(classifier.classify(chrome + "\r\nX-Injected: 1").platform == .desktop)
        #expect(classifier.classify(String((0..<128).map { Character(Unicode.Scalar(UInt8($0))) })).platform != .iOS)

        // Invalid UTF-8 (repaired to U+FFFD) around a real token.
        let invalid = String(decoding: [0xFF, 0xFE, 0xC0, 0x80, 0xED, 0xA0, 0x80] + Array("Googlebot/2.1".utf8) + [0xF8, 0x88], as: UTF8.self)
        #expect(classifier.classify(invalid).botName == "google")
        // Non-ASCII letters are not folded into ASCII tokens.
        #expect(classifier.classify("Mozİlla/5.0 (İPHONE; CPU İPHONE OS 17_0)").appleDevice == nil)

        // Truncated and absurd version numbers.
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS ") == ClientInfo(platform: .iOS, appleDevice: "iphone"))
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 99999999999999999999999_1 like Mac OS X)").osVersion == nil)
        #expect(classifier.classify("Mozilla/5.0 (iPhone; CPU iPhone OS 17_ like Mac OS X)").osVersion == "17")
        #expect(classifier.classify("Mozilla/5.0 (Linux; Android ") == ClientInfo(platform: .android))
        #expect(classifier.classify("Mozilla/5.0 (Linux; Android 14.").osVersion == "14")

        // Tokens at the very end and very start of the header.
        #expect(classifier.classify("x googlebot").botName == "google")
        #expect(classifier.classify("googlebo").botName == "unidentified")
        #expect(classifier.classify("iPad").appleDevice == "ipad")
    }

    @Test("A substring's storage is handled like any other string")
    func substringInput() {
        let line = "prefix|Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15|suffix"
        let parts = line.split(separator: "|")
        let info = classifier.classify(String(parts[1]))
        #expect(info == ClientInfo(platform: .iOS, osVersion: "17.0", appleDevice: "iphone"))
    }

    // MARK: Concurrency and API

    @Test("Classification is deterministic across concurrent callers")
    func concurrentClassification() async {
        let corpus = UserAgentCorpus.all
        let sequential = corpus.map { classifier.classify($0.userAgent) }
        let shared = UserAgentClassifier()
        let concurrent = await withTaskGroup(of: (Int, ClientInfo).self) { group in
            for (index, testCase) in corpus.enumerated() {
                group.addTask { (index, shared.classify(testCase.userAgent)) }
            }
            var results = [ClientInfo?](repeating: nil, count: corpus.count)
            for await (index, info) in group { results[index] = info }
            return results.compactMap { $0 }
        }
        #expect(concurrent == sequential)
    }

    @Test("Platforms encode as stable strings")
    func platformCoding() throws {
        #expect(ClientPlatform.allCases.map(\.rawValue) == ["ios", "android", "desktop", "bot", "other"])
        let data = try JSONEncoder().encode(ClientPlatform.allCases)
        #expect(String(decoding: data, as: UTF8.self) == #"["ios","android","desktop","bot","other"]"#)
        #expect(try JSONDecoder().decode([ClientPlatform].self, from: data) == ClientPlatform.allCases)
    }

    @Test("Convenience properties")
    func convenienceProperties() {
        #expect(ClientInfo(platform: .bot, botName: "curl").isBot)
        #expect(!ClientInfo(platform: .desktop).isBot)
        #expect(ClientInfo(platform: .iOS).isMobile)
        #expect(ClientInfo(platform: .android).isMobile)
        #expect(!ClientInfo(platform: .other).isMobile)
    }
}
