import FerryAPI
import FerryTestSupport
import Testing
@testable import FerryCore

@Suite("URLRules", .takesTurns)
struct URLRulesTests {
    static let longValid: String = {
        let base = "https://example.com/"
        return base + String(repeating: "a", count: URLRules.maxLength - base.utf8.count)
    }()

    // MARK: web destinations

    @Test(arguments: [
        "https://example.com",
        "http://example.com/",
        "https://example.com/path/to/page?x=1&y=2#section",
        "HTTPS://EXAMPLE.COM/Path",
        "Http://Example.com",
        "https://sub.domain.example.co.uk:8443/a",
        "http://localhost:8080/x",
        "http://127.0.0.1/x",
        "http://[::1]:8080/x",
        "https://[2001:db8::1]/",
        "https://[::ffff:1.2.3.4]:443/x",
        "https://example.com/a%20b?q=%E2%9C%93",
        "https://example.com?x=1",
        "https://example.com#frag",
        "https://xn--bcher-kva.example/",
        "https://example.com/~user/it's(ok)!*",
        "https://example.com/search?q=a+b&tags[]=x&y={1}",
        "https://a.b",
        "https://example.com:1/",
        "https://example.com:65535/",
        "https://my-host.example.com/",
        "https://123.example.com/",
        longValid,
    ])
    func acceptsWebURLs(url: String) throws {
        #expect(try URLRules.validateWebURL(url, field: "destination") == url)
    }

    @Test(arguments: [
        // empty, forbidden and non-web schemes
        "",
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "JavaScript://example.com/%0Aalert(1)",
        "javascript://example.com/",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "DATA:text/plain,hi",
        "vbscript:msgbox(1)",
        "file:///etc/passwd",
        "file://example.com/etc/passwd",
        "ftp://example.com/",
        "ws://example.com/",
        "myapp://x",
        "about:blank",
        "blob:https://example.com/uuid",
        "httpx://example.com",
        "http+s://example.com",
        // relative and scheme-relative
        "/relative/path",
        "relative/path",
        "example.com",
        "example.com:443",
        "www.example.com/path",
        "//evil.com",
        "//evil.com/x",
        "?x=1",
        "#frag",
        // malformed authority
        "https:evil.com",
        "https:/evil.com",
        "https:///evil.com",
        "https:",
        "http:",
        "https:/",
        "https://",
        "https://?x=1",
        "https://#x",
        "https:///path",
        "1http://example.com",
        "ht tp://example.com",
        ":https://example.com",
        // backslashes
        "https:\\\\evil.com",
        "https:\\/evil.com",
        "https://evil.com\\@good.com",
        "https://example.com\\path",
        // spaces, control characters, CR/LF
        " https://example.com",
        "https://example.com ",
        "https://exa mple.com",
        "https://example.com/a b",
        "https://example.com/\t",
        "java\tscript:alert(1)",
        "https://example.com/\u{0}",
        "https://example.com/\u{7}",
        "https://example.com/\u{7F}",
        "https://example.com/\r\nSet-Cookie: x=1",
        "https://example.com/\n",
        "https://example.com/\r",
        // quotes and angle brackets
        "https://example.com/\"onmouseover=\"alert(1)",
        "https://example.com/<script>",
        "https://example.com/>",
        // non-ASCII
        "https://bücher.de/",
        "https://exämple.com",
        "https://example.com/ü",
        "https://example.com/?q=✓",
        "https://еxample.com/",
        "https://example.com\u{200B}/",
        "https://example.com/\u{2028}",
        // credentials
        "https://user@example.com/",
        "https://user:pass@example.com/",
        "https://good.com@evil.com/",
        "https://@example.com/",
        "https://user%40good.com@evil.com/",
        // hosts
        "https://:443/",
        "https://%65xample.com/",
        "https://exa_mple.com/",
        "https://-example.com/",
        "https://example-.com/",
        "https://example..com/",
        "https://.example.com/",
        "https://example.com./",
        // ports
        "https://example.com:0/",
        "https://example.com:65536/",
        "https://example.com:99999999999999999999/",
        "https://example.com:-1/",
        "https://example.com:+443/",
        "https://example.com:abc/",
        "https://example.com:/",
        "https://example.com:08080/",
        "https://example.com:443:443/",
        // IPv6 literals
        "https://[::1/",
        "https://[::1]x/",
        "https://[nothex]/",
        "https://[]/",
        "https://[::1]:0/",
        "https://[::1]:65536/",
        "https://[::1]:/",
        "https://[::1]:+80/",
        "https://[::1]:0080/",
        "https://[fe80::1%25eth0]/",
        "https://[1.2.3.4]/",
        // too long
        longValid + "a",
        "https://example.com/" + String(repeating: "a", count: 10_000),
    ])
    func refusesWebURLs(url: String) {
        let error = validationError { try URLRules.validateWebURL(url, field: "destination") }
        #expect(error?.field == "destination")
        #expect(error?.code == .invalidField)
    }

    @Test func errorsNameTheField() {
        let error = validationError { try URLRules.validateWebURL("javascript:alert(1)", field: "social.imageURL") }
        #expect(error?.field == "social.imageURL")
        #expect(error?.message.contains("social.imageURL") == true)
    }

    @Test func lengthLimitIsInBytes() {
        #expect(URLRules.maxLength == 4096)
        #expect(Self.longValid.utf8.count == 4096)
        let error = validationError { try URLRules.validateWebURL(Self.longValid + "a", field: "destination") }
        #expect(error?.message.contains("4096") == true)
    }

    // MARK: app links

    @Test(arguments: [
        "myapp://",
        "myapp://path?x=1#y",
        "myapp:path",
        "myapp:/path",
        "MyApp://Sale",
        "com.example.app://open",
        "my-app+v2.test://x",
        "fb123456789://",
        "https://example.com/app/x",
        "HTTPS://example.com/app",
        "https://[::1]:8443/x",
    ])
    func acceptsAppURLs(url: String) throws {
        #expect(try URLRules.validateAppURL(url, field: "iosURL") == url)
    }

    @Test(arguments: [
        "",
        "http://example.com/x",
        "HTTP://example.com/x",
        "javascript:alert(1)",
        "JAVASCRIPT:alert(1)",
        "JavaScript://x/%0Aalert(1)",
        "data:text/html,hi",
        "vbscript:x",
        "file:///etc/passwd",
        "about:blank",
        "blob:x",
        "view-source:https://example.com",
        "chrome-extension://x",
        "myapp:",
        "MYAPP:",
        "://x",
        ":",
        "1app://x",
        "-app://x",
        "my app://x",
        "my_app://x",
        "myapp",
        "/path",
        "//evil.com/x",
        "https:evil.com",
        "https:/evil.com",
        "https://",
        "https://user@example.com/x",
        "https://example.com:0/",
        "myapp://x\n",
        "myapp://x y",
        "myapp://x\\y",
        "myapp://ü",
        "myapp://<script>",
        "myapp://" + String(repeating: "a", count: 4096),
    ])
    func refusesAppURLs(url: String) {
        let error = validationError { try URLRules.validateAppURL(url, field: "androidURL") }
        #expect(error?.field == "androidURL")
    }

    @Test(arguments: URLSchemes.forbidden.sorted())
    func everyForbiddenSchemeIsRefusedForApps(scheme: String) {
        #expect(validationError { try URLRules.validateAppURL("\(scheme):x", field: "iosURL") } != nil)
        #expect(validationError { try URLRules.validateAppURL("\(scheme.uppercased())://x", field: "iosURL") } != nil)
        #expect(validationError { try URLRules.validateWebURL("\(scheme)://example.com/", field: "destination") } != nil)
    }

    // MARK: schemes

    @Test(arguments: [
        ("Custom://x", "custom"),
        ("HTTPS://x", "https"),
        ("a+b-c.d:x", "a+b-c.d"),
        ("x:", "x"),
        ("web+app:z", "web+app"),
    ])
    func schemeIsLowercased(url: String, scheme: String) throws {
        #expect(try URLRules.scheme(of: url, field: "f") == scheme)
    }

    @Test(arguments: ["", "noscheme", ":x", "1a:x", "+a:x", "a b:x", "a_b:x", "/a:x", "é:x", String(repeating: "a", count: 65) + ":x"])
    func schemeRefusesMalformed(url: String) {
        #expect(validationError { try URLRules.scheme(of: url, field: "f") }?.field == "f")
    }

    @Test func schemeLengthLimit() throws {
        let scheme = String(repeating: "a", count: 64)
        #expect(try URLRules.scheme(of: scheme + ":x", field: "f") == scheme)
    }
}
