import FerryAPI
import Foundation

extension FirebaseLinkImport {
    /// Where visitors without the app are sent.
    enum Landing: Equatable {
        case appStore, playStore
        case web(String)

        var text: String {
            switch self {
            case .appStore: "the App Store"
            case .playStore: "the Play Store"
            case .web: "a web page"
            }
        }

        /// How a note names `self` next to `other`: two different web pages are "a web page" and "another web page".
        func text(besides other: Landing) -> String {
            text == other.text ? "another web page" : text
        }
    }
}

extension FirebaseLinkImport.Draft {
    typealias Column = FirebaseLinkImport.Column
    typealias Landing = FirebaseLinkImport.Landing


    /// The row's per-link parameters as Ferry's per-link routing, noting values that cannot be kept.
    mutating func routing(deepLink: String) -> LinkRouting {
        var routing = LinkRouting()
        // FDL sent phones to the store only for a row naming the app (ibi, apn); without it, to ifl/afl or the link.
        routing.iosFallbackURL = cells.value(.ifl) ?? (cells.isEmptyInFile(.ibi) ? deepLink : nil)
        routing.ipadFallbackURL = cells.value(.ipfl)
        routing.ipadBundleID = cells.value(.ipbi)
        if let isi = cells.value(.isi) {
            let canonical = try? AppRules.validateAppStoreID(isi)
            if canonical == nil || canonical != app.ios.appStoreID { routing.appStoreID = canonical ?? isi }
        }
        routing.iosMinimumVersion = cells.value(.imv)
        routing.androidFallbackURL = cells.value(.afl) ?? (cells.isEmptyInFile(.apn) ? deepLink : nil)
        if let amv = cells.value(.amv) {
            if let code = Int(amv) {
                routing.androidMinimumVersionCode = code
            } else {
                notes.append("\(Column.amv.label) \(Self.quote(amv)) is not a whole number: no minimum version is kept")
            }
        }
        if let desktop = cells.value(.ofl), desktop != deepLink {
            routing.otherPlatformFallbackURL = desktop
        }
        if let efr = cells.value(.efr) {
            switch FirebaseLinkImport.boolean(efr) {
            case true?: routing.skipPreviewPage = true
            case false?: break
            case nil: notes.append("\(Column.efr.label) \(Self.quote(efr)) is not a boolean: visitors see Ferry's pages as usual")
            }
        }
        let analytics = AppStoreAnalytics(
            affiliateToken: cells.value(.itunesAt), campaignToken: cells.value(.itunesCt), mediaType: cells.value(.itunesMt),
            providerToken: cells.value(.itunesPt)
        )
        if !analytics.isEmpty { routing.appStoreAnalytics = analytics }
        return routing
    }

    /// Values of the row that Ferry keeps on the app, when they differ from the app's.
    mutating func noteAppSettings() {
        if let apn = cells.value(.apn), let own = app.android.packageName, apn != own {
            notes.append("Android package (apn) \(Self.quote(apn)) is not the app's ('\(own)'): Ferry uses the app's")
        }
        if let bundle = cells.value(.ibi), !app.ios.bundleIDs.contains(bundle) {
            let own = app.ios.bundleIDs.isEmpty ? "it has none" : app.ios.bundleIDs.joined(separator: ", ")
            notes.append("\(Column.ibi.label) \(Self.quote(bundle)) is not one of the app's bundle IDs (\(own)): the app's association file decides which apps open the link")
        }
        if let ius = cells.value(.ius), ius.lowercased() != app.ios.urlScheme?.lowercased() {
            let own = app.ios.urlScheme.map { "'\($0)'" } ?? "none"
            notes.append("iOS custom scheme (ius) \(Self.quote(ius)) is not the app's URL scheme (\(own)): Ferry's \"Open in app\" uses the app's")
        }
    }

    /// Where phones and tablets without the app went with FDL and go with Ferry (the link's routing over the app's
    /// settings), when that differs. A file without the ibi (or apn) column says nothing of where FDL sent them.
    mutating func noteLandings(_ routing: LinkRouting, deepLink: String) {
        let ferryStore: Landing = (routing.appStoreID ?? app.ios.appStoreID) != nil ? .appStore : .web(app.fallbackURL ?? deepLink)
        let fdlIPhone: Landing? = cells.value(.ifl).map { .web($0) }
            ?? (cells.value(.ibi) != nil ? .appStore : cells.isEmptyInFile(.ibi) ? .web(deepLink) : nil)
        let ferryIPhone = routing.iosFallbackURL.map { Landing.web($0) } ?? ferryStore
        if let fdlIPhone, fdlIPhone != ferryIPhone {
            let detail = cells.value(.ifl) != nil ? " (the iOS fallback link, ifl)" : ""
            notes.append("iPhones without the app went to \(fdlIPhone.text)\(detail) with FDL; Ferry's page leads them to \(ferryIPhone.text(besides: fdlIPhone))")
        }
        if cells.value(.ipfl) != nil || cells.value(.ipbi) != nil {
            let fdlIPad: Landing? = cells.value(.ipfl).map { .web($0) } ?? (cells.value(.ipbi) != nil ? .appStore : fdlIPhone)
            let ferryIPad = (routing.ipadFallbackURL ?? routing.iosFallbackURL).map { Landing.web($0) } ?? ferryStore
            if let fdlIPad, fdlIPad != ferryIPad {
                notes.append("iPads without the app went to \(fdlIPad.text) with FDL; Ferry's page leads them to \(ferryIPad.text(besides: fdlIPad))")
            }
        }
        let fdlAndroid: Landing? = cells.value(.afl).map { .web($0) }
            ?? (cells.value(.apn) != nil ? .playStore : cells.isEmptyInFile(.apn) ? .web(deepLink) : nil)
        let ferryAndroid = routing.androidFallbackURL.map { Landing.web($0) } ?? (app.android.packageName != nil ? .playStore : .web(deepLink))
        if let fdlAndroid, fdlAndroid != ferryAndroid {
            let detail = cells.value(.afl) != nil ? " (the Android fallback link, afl)" : ""
            notes.append("Android phones without the app went to \(fdlAndroid.text)\(detail) with FDL; Ferry sends them to \(ferryAndroid.text(besides: fdlAndroid))")
        }
    }
}
