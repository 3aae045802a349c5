import Foundation

/// The pseudonym of a signed-in person that a link's URL may carry (`?ferry_user=fu_…`), so that the click is known
/// to be theirs.
///
/// An app's website, where the person is signed in, adds it to the Ferry links it shows them ("Open in the app").
/// When the app later binds the same user id to an install (`POST /v1/attribution/user`), the person's click in the
/// attribution window before the install is a labelled example for the app's learnt model: the click that led to
/// the install, known without the probabilistic tier. The server mints the token from the user id with its own
/// key (`POST /v1/attribution/user-tokens`, secret key): nobody without a secret key of the app can make the token
/// of someone else's user id, and the token says nothing of the user id to anyone without the server's key.
package enum UserClickToken {
    /// The query parameter that carries it.
    package static let parameter = "ferry_user"
    /// What every token starts with.
    package static let prefix = "fu_"
    /// Its length: the prefix and 32 lowercase hexadecimal digits (128 bits).
    package static let length = 35

    /// Whether `text` is shaped like a token (only the server can tell whether it names anyone).
    package static func isWellFormed(_ text: some StringProtocol) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == length, text.hasPrefix(prefix) else { return false }
        return utf8.dropFirst(prefix.utf8.count).allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The token a click's raw query carries, when it carries exactly one well-formed token (anything else is
    /// ignored: a visitor's URL is never refused for it).
    package static func token(inQuery query: String?) -> String? {
        guard let query, query.utf8.count >= length, query.contains("user") else { return nil }
        let values = QueryString(query).items.filter { QueryString.decode(Substring($0.name)) == parameter }
        guard values.count == 1, let value = values[0].value, isWellFormed(value) else { return nil }
        return value
    }

    /// A click with the token its query carries moved to `Click.userToken`, and the query without it (nil when
    /// nothing else is left): the token is kept apart from the query a deep link carries on.
    package static func separated(_ click: Click) -> Click {
        guard let token = token(inQuery: click.query) else { return click }
        var click = click, rest = QueryString(click.query ?? "")
        rest.remove(parameter)
        click.userToken = token
        click.query = rest.isEmpty ? nil : rest.encoded
        return click
    }

    /// The text the server's keyed hash is taken of, for a user id of an app and environment.
    package static func hashedText(appID: String, environment: String, userID: String) -> String {
        "user-click:" + appID + "|" + environment + "|" + userID
    }
}
