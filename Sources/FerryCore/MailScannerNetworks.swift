/// Networks that email security vendors publish as those their services fetch from: a click from one of them, with
/// a browser's user agent, is a scanner checking a message's link, not the message's reader. Only ranges a vendor
/// publishes itself are listed, each with the page that says so; an operator adds others with
/// `FERRY_SCANNER_NETWORKS`, and turns these off with `FERRY_PUBLISHED_SCANNER_NETWORKS=off`.
package enum MailScannerNetworks {
    /// Vendor, network and source, separated by tabs; one a line.
    ///
    /// - `microsoft-eop`: Exchange Online Protection, which Microsoft publishes as the addresses its mail service
    ///   sends from (endpoint set 10 of its list, as of version 2022072800). Safe Links' checks at delivery have been
    ///   seen from them; Microsoft publishes no separate list for Safe Links, whose checks also come from other Azure
    ///   addresses (those are found by their burst). No person browses from a mail relay.
    /// - `fortisandbox`: the "security egress" addresses of Fortinet's cloud sandbox, which FortiMail and Fortinet's
    ///   other products send links and files to.
    ///
    /// Mimecast, Proofpoint, Barracuda, Trend Micro and Broadcom publish their gateways' inbound and outbound mail
    /// addresses, not the ones their link checks fetch from; they are not listed.
    package static let table = """
        microsoft-eop\t40.92.0.0/15\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        microsoft-eop\t40.107.0.0/16\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        microsoft-eop\t52.100.0.0/14\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        microsoft-eop\t104.47.0.0/17\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        microsoft-eop\t2a01:111:f400::/48\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        microsoft-eop\t2a01:111:f403::/48\thttps://learn.microsoft.com/microsoft-365/enterprise/urls-and-ip-address-ranges (endpoint set 10)
        fortisandbox\t173.243.137.20/30\thttps://docs.fortinet.com/document/fortisandbox-cloud/23.4.4374/cloud-deployment/437694/appendix-a-supported-regions
        fortisandbox\t173.243.137.24/30\thttps://docs.fortinet.com/document/fortisandbox-cloud/23.4.4374/cloud-deployment/437694/appendix-a-supported-regions
        fortisandbox\t173.243.137.28/31\thttps://docs.fortinet.com/document/fortisandbox-cloud/23.4.4374/cloud-deployment/437694/appendix-a-supported-regions
        fortisandbox\t194.69.174.8/32\thttps://docs.fortinet.com/document/fortisandbox-cloud/23.4.4374/cloud-deployment/437694/appendix-a-supported-regions
        fortisandbox\t208.184.237.20/32\thttps://docs.fortinet.com/document/fortisandbox-cloud/23.4.4374/cloud-deployment/437694/appendix-a-supported-regions
        """

    /// The networks of the table, with their vendor; a line that is not a network is left out.
    package static let published: [(vendor: String, network: IPNetwork)] = table.split(separator: "\n").compactMap { line in
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        guard fields.count == 3, let network = IPNetwork(fields[1]) else { return nil }
        return (String(fields[0]), network)
    }
}
