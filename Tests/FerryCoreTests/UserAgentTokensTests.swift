import FerryTestSupport
import Testing
@testable import FerryCore

/// The data file of bot tokens (`UserAgentTokens`, made by scripts/update-user-agents.py): every row reaches the
/// classifier, and the link-preview fetchers it adds get the preview.
@Suite(.takesTurns) struct UserAgentTokensTests {
    static let classes: Set = ["unfurler", "crawler", "ai", "monitor", "library", "headless", "scanner", "mail"]

    @Test func everyRowOfTheDataFileReachesTheClassifier() {
        let rows = UserAgentTokens.table.split(separator: "\n")
        let listed = UserAgentTokens.bots
        #expect(rows.count > 1_000)
        #expect(listed.reduce(0) { $0 + $1.patterns.count } == rows.count, "no row is left out")
        #expect(listed.allSatisfy { Self.classes.contains($0.kind) })
        #expect(Set(listed.map(\.name)).count == listed.count, "one group per name")
    }

    /// Real headers of fetchers the named rules did not know (each is an example in crawler-user-agents, MIT).
    @Test(arguments: [
        ("Discourse Forum Onebox v3.3.0.beta1-dev", "discourse"),
        ("Valve/Steam HTTP Client 1.0 (SteamChatURLLookup)", "valve"),
        ("github-camo (c006e452)", "github-camo"),
        ("FastmailUA/1.0", "fastmailua"),
        ("TwilioProxy/1.1", "twilioproxy"),
        ("Hatena Antenna/0.3", "hatena"),
        ("Synapse (bot; +https://github.com/matrix-org/synapse)", "synapse"),
    ])
    func linkPreviewFetchersOfTheListAreBots(userAgent: String, name: String) {
        let info = UserAgentClassifier().classify(userAgent)
        #expect(info.platform == .bot && info.botName == name, "\(info)")
    }

    /// Real headers of email security services that name themselves (examples of Matomo Device Detector and
    /// Crawler-Detect): bots whose clicks are a scanner's; other bots' are a bot's, and a browser's a person's.
    @Test(arguments: [
        ("Barracuda Sentinel (EE)", "barracuda"),
        ("Kaspersky Lab CFR link resolver cfradmins@kaspersky.com", "kaspersky"),
        ("SpamExperts/128741 (Virus Scan)", "spamexperts"),
        ("YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html", "yahoo-mail"),
        ("Mozilla/5.0 SeznamEmailProxy/2.0.174", "seznam-mail"),
        ("Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/55.0.2883.87 Safari/537.36 (via secureurl.fwdcdn.com - mail.ukr.net proxy)",
         "ukrnet-mail"),
        ("TwinWaveScanner", "twinwave"),
    ])
    func emailScannersThatNameThemselvesAreScanners(userAgent: String, name: String) {
        let info = UserAgentClassifier().classify(userAgent)
        #expect(info.platform == .bot && info.botName == name && info.isMailScanner, "\(info)")
        #expect(ClickTraffic.of(client: info, prefetch: false) == .scanner)
        #expect(ClickTraffic.of(client: info, prefetch: true) == .prefetch)
    }

    @Test func otherBotsAndBrowsersAreNoScanners() {
        let slack = UserAgentClassifier().classify("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)")
        #expect(!slack.isMailScanner && ClickTraffic.of(client: slack, prefetch: false) == .bot)
        let safari = UserAgentClassifier().classify(
            "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1")
        #expect(ClickTraffic.of(client: safari, prefetch: false) == .person)
        #expect(UserAgentTokens.mailScanners.count == 7)
    }

    @Test func blueskysCardFetcherComesFromFerrysOwnList() {
        let info = UserAgentClassifier().classify("Mozilla/5.0 (compatible; Bluesky Cardyb/1.1; +mailto:support@bsky.app)")
        #expect(info.platform == .bot && info.botName == "bluesky")
        #expect(UserAgentTokens.table.contains("unfurler\tbluesky\tbluesky cardyb\tferry"))
    }

    @Test func peopleTheListWouldHaveTakenForBotsStayPeople() {
        // Viber's in-app browser, and an Android 15 build number the list once named.
        let viber = UserAgentClassifier().classify(
            "Mozilla/5.0 (Linux; Android 14; SM-S921B Build/UP1A.231005.007; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/124.0.6367.82 Mobile Safari/537.36 Viber/22.5.0.0")
        #expect(viber.platform == .android && viber.inAppBrowser == "viber")
        let phone = UserAgentClassifier().classify(
            "Mozilla/5.0 (Linux; Android 15; Pixel 8 Build/AP3A.240617.008) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/127.0.6533.103 Mobile Safari/537.36")
        #expect(phone.platform == .android)
    }
}
