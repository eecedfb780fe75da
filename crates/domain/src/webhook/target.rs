//! Where webhooks may be sent (SSRF protection). A URL must be https, or http to a
//! host the operator allows; it may not carry credentials; and every address its host
//! resolves to must be public: loopback, private, shared, link-local (the cloud
//! metadata services included), multicast, documentation and reserved addresses are
//! refused unless the operator allows them (`RICS_WEBHOOK_ALLOW_HOSTS`: IPs, CIDRs or
//! host names). The check runs after DNS resolution, at create and again before each
//! delivery, so a name that later resolves elsewhere (DNS rebinding) gets no further.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;
use url::{Host, Url};

use super::ports::HostResolver;
use super::service::MAX_URL;
use crate::error::{Error, Result};
use crate::validate::Violations;

/// What the operator allows beyond public https URLs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetPolicy {
    /// Addresses (single ones as /32 or /128) that may be reached, over http too.
    networks: Vec<IpNet>,
    /// Host names (lower case) that may be reached wherever they resolve, over http
    /// too.
    hosts: Vec<String>,
}

/// A URL that passed the checks that need no DNS.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The URL.
    pub url: Url,
    /// Its host, as the URL gives it (no brackets around an IPv6 address).
    pub host: String,
    /// Its port, explicit or the scheme's.
    pub port: u16,
}

impl TargetPolicy {
    /// The policy of `allow`: comma-separated IPs, CIDRs or host names; empty allows
    /// nothing beyond public https URLs.
    ///
    /// # Errors
    /// A description of an item that is none of those.
    pub fn parse(allow: &str) -> std::result::Result<TargetPolicy, String> {
        let mut policy = TargetPolicy::default();
        for item in allow.split(',').map(str::trim).filter(|i| !i.is_empty()) {
            if let Ok(network) = item.parse::<IpNet>() {
                policy.networks.push(network);
            } else if let Ok(address) = item.parse::<IpAddr>() {
                policy.networks.push(IpNet::from(address));
            } else if item.contains('/') || Host::parse(item).is_err() {
                return Err(format!(
                    "'{item}' is not an IP address, a CIDR or a host name"
                ));
            } else {
                policy.hosts.push(item.to_ascii_lowercase());
            }
        }
        Ok(policy)
    }

    /// Checks `url` (the request field `field`) without resolving it: an absolute
    /// http(s) URL with a host and no credentials, https unless its host is allowed.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming `field`: `INVALID_URL`, `URL_CREDENTIALS`;
    /// FAILED_PRECONDITION `URL_NOT_HTTPS` for http to a host the operator does not
    /// allow (the same URL passes where it does).
    pub fn check_url(&self, field: &str, url: &str) -> Result<Target> {
        let invalid = |reason, description: &str| Error::invalid_field(field, reason, description);
        let parsed = Url::parse(url).map_err(|e| invalid("INVALID_URL", &e.to_string()))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(invalid(
                "URL_CREDENTIALS",
                "must not carry credentials; the signature authenticates each delivery",
            ));
        }
        let host = match parsed.host() {
            Some(Host::Domain(name)) => name.to_ascii_lowercase(),
            Some(Host::Ipv4(address)) => address.to_string(),
            Some(Host::Ipv6(address)) => address.to_string(),
            None => return Err(invalid("INVALID_URL", "must have a host")),
        };
        let port = parsed.port_or_known_default().unwrap_or(443);
        match parsed.scheme() {
            "https" => {}
            "http" if self.allows_host(&host) => {}
            "http" => {
                return Err(refused(
                    field,
                    "URL_NOT_HTTPS",
                    format!("'{field}' must be https (http only to a host the operator allows)"),
                ));
            }
            _ => return Err(invalid("INVALID_URL", "must be an https URL")),
        }
        Ok(Target {
            url: parsed,
            host,
            port,
        })
    }

    /// The addresses `target` leads to, each allowed: its IP, or what its name
    /// resolves to now.
    ///
    /// # Errors
    /// FAILED_PRECONDITION naming `field` (what DNS answers and what the operator
    /// allows decide, not the request alone): `URL_UNRESOLVED` when the name does not
    /// resolve, `URL_FORBIDDEN_ADDRESS` when an address is not public and not allowed.
    pub async fn addresses(
        &self,
        field: &str,
        target: &Target,
        resolver: &dyn HostResolver,
    ) -> Result<Vec<IpAddr>> {
        let addresses = match target.host.parse::<IpAddr>() {
            Ok(address) => vec![address],
            Err(_) => resolver
                .resolve(&target.host, target.port)
                .await
                .map_err(|e| refused(field, "URL_UNRESOLVED", e))?,
        };
        if addresses.is_empty() {
            return Err(refused(
                field,
                "URL_UNRESOLVED",
                format!("'{}' resolves to no address", target.host),
            ));
        }
        let host_allowed = self.hosts.contains(&target.host);
        if let Some(forbidden) = addresses
            .iter()
            .find(|a| !host_allowed && !self.allows_address(**a) && !is_public(**a))
        {
            return Err(refused(
                field,
                "URL_FORBIDDEN_ADDRESS",
                format!(
                    "'{}' leads to {forbidden}, which is not a public address",
                    target.host
                ),
            ));
        }
        Ok(addresses)
    }

    /// Checks `url` (the request field `field`) as a create does: its form
    /// ([`TargetPolicy::check_url`]) and where it leads now
    /// ([`TargetPolicy::addresses`]).
    ///
    /// # Errors
    /// As those two.
    pub async fn admit(&self, field: &str, url: &str, resolver: &dyn HostResolver) -> Result<()> {
        let target = self.check_url(field, url)?;
        self.addresses(field, &target, resolver).await.map(|_| ())
    }

    /// Whether `host` (a name or an IP) is one the operator allows.
    fn allows_host(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h == host)
            || host.parse::<IpAddr>().is_ok_and(|a| self.allows_address(a))
    }

    fn allows_address(&self, address: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(&address))
    }
}

/// Checks a job's `webhookUri` (the request field `field`, such as
/// `onboardingJob.webhookUri`) when the job is created: at most [`MAX_URL`]
/// characters, then the SSRF rules of webhook endpoints. An empty URI passes: the job
/// asks for no notification. The URL is checked again at each delivery, after DNS.
///
/// # Errors
/// INVALID_ARGUMENT naming `field`: `INVALID_URL`, `URL_CREDENTIALS`, too long;
/// FAILED_PRECONDITION naming it: `URL_NOT_HTTPS`, `URL_UNRESOLVED`,
/// `URL_FORBIDDEN_ADDRESS`.
pub async fn check_webhook_uri(
    policy: &TargetPolicy,
    resolver: &dyn HostResolver,
    field: &str,
    uri: &str,
) -> Result<()> {
    if uri.is_empty() {
        return Ok(());
    }
    let mut v = Violations::new();
    v.optional_text(field, uri, MAX_URL);
    v.finish()?;
    policy.admit(field, uri, resolver).await
}

/// FAILED_PRECONDITION `reason` about the URL in `field`: where it leads, which DNS and
/// the operator's allow list decide, is refused.
fn refused(field: &str, reason: &'static str, message: impl Into<String>) -> Error {
    Error::failed_precondition(reason, message).with_metadata("field", field)
}

/// Whether `address` is a public unicast address: not loopback, unspecified, private,
/// shared (100.64/10), link-local (169.254/16, where cloud metadata services answer;
/// fe80::/10), unique local (fc00::/7, AWS's IPv6 metadata service included),
/// multicast, broadcast, documentation, benchmarking or reserved; an IPv4-mapped IPv6
/// address as its IPv4 address.
pub fn is_public(address: IpAddr) -> bool {
    match address {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(a: Ipv4Addr) -> bool {
    let [first, second, ..] = a.octets();
    !(a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_broadcast()
        || a.is_documentation()
        || a.is_multicast()
        || first == 0
        || first >= 240
        || (first == 100 && (64..128).contains(&second))
        || (first == 198 && (18..20).contains(&second))
        || (first == 192 && second == 0 && a.octets()[2] == 0))
}

fn is_public_v6(a: Ipv6Addr) -> bool {
    let first = a.segments()[0];
    !(a.is_loopback()
        || a.is_unspecified()
        || a.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || first == 0x2001 && a.segments()[1] == 0x0db8
        || a.to_ipv4().is_some_and(|v4| !is_public_v4(v4)) && first == 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::webhook::ports::MockHostResolver;

    fn resolver(addresses: &'static [&'static str]) -> MockHostResolver {
        let mut resolver = MockHostResolver::new();
        resolver
            .expect_resolve()
            .returning(move |_, _| Ok(addresses.iter().map(|a| a.parse().unwrap()).collect()));
        resolver
    }

    async fn reason(
        policy: &TargetPolicy,
        url: &str,
        resolves_to: &'static [&'static str],
    ) -> String {
        let outcome = match policy.check_url("u", url) {
            Ok(target) => policy
                .addresses("u", &target, &resolver(resolves_to))
                .await
                .map(|_| ()),
            Err(e) => Err(e),
        };
        outcome.err().map_or("OK".into(), |e| e.reason.to_owned())
    }

    #[tokio::test]
    async fn urls_must_be_https_without_credentials_and_lead_to_public_addresses() {
        let none = TargetPolicy::default();
        for (url, resolves_to, expected) in [
            ("https://hooks.example.com/x", &["93.184.216.34"][..], "OK"),
            (
                "http://hooks.example.com/x",
                &["93.184.216.34"],
                "URL_NOT_HTTPS",
            ),
            (
                "ftp://hooks.example.com/x",
                &["93.184.216.34"],
                "INVALID_URL",
            ),
            ("not a url", &[], "INVALID_URL"),
            (
                "https://user:pw@hooks.example.com/",
                &["93.184.216.34"],
                "URL_CREDENTIALS",
            ),
            (
                "https://user@hooks.example.com/",
                &["93.184.216.34"],
                "URL_CREDENTIALS",
            ),
            ("https://127.0.0.1/", &[], "URL_FORBIDDEN_ADDRESS"),
            ("https://10.0.0.1/", &[], "URL_FORBIDDEN_ADDRESS"),
            (
                "https://169.254.169.254/latest",
                &[],
                "URL_FORBIDDEN_ADDRESS",
            ),
            ("https://[::1]/", &[], "URL_FORBIDDEN_ADDRESS"),
            ("https://[::ffff:127.0.0.1]/", &[], "URL_FORBIDDEN_ADDRESS"),
            ("https://[fd00:ec2::254]/", &[], "URL_FORBIDDEN_ADDRESS"),
            ("https://100.100.100.200/", &[], "URL_FORBIDDEN_ADDRESS"),
            (
                "https://localhost.example/",
                &["127.0.0.1"],
                "URL_FORBIDDEN_ADDRESS",
            ),
            (
                "https://mixed.example/",
                &["93.184.216.34", "192.168.1.1"],
                "URL_FORBIDDEN_ADDRESS",
            ),
            ("https://nowhere.example/", &[], "URL_UNRESOLVED"),
        ] {
            assert_eq!(reason(&none, url, resolves_to).await, expected, "{url}");
        }
    }

    #[tokio::test]
    async fn the_operator_may_allow_addresses_networks_and_names() {
        let policy = TargetPolicy::parse("127.0.0.1, 10.0.0.0/8,::1,hooks.internal").unwrap();
        for (url, resolves_to) in [
            ("http://127.0.0.1:8080/x", &[][..]),
            ("https://10.1.2.3/", &[]),
            ("http://[::1]:9000/", &[]),
            ("http://hooks.internal/", &["192.168.1.5"]),
        ] {
            assert_eq!(reason(&policy, url, resolves_to).await, "OK", "{url}");
        }
        assert_eq!(
            reason(&policy, "https://169.254.169.254/", &[]).await,
            "URL_FORBIDDEN_ADDRESS"
        );
        assert_eq!(
            reason(&policy, "http://other.example/", &["127.0.0.1"]).await,
            "URL_NOT_HTTPS"
        );
        assert!(TargetPolicy::parse("10.0.0.0/33").is_err());
        assert!(TargetPolicy::parse("not a host").is_err());
        assert_eq!(TargetPolicy::parse(" ").unwrap(), TargetPolicy::default());
    }

    #[tokio::test]
    async fn a_jobs_webhook_uri_is_checked_as_an_endpoint_url_naming_its_field() {
        let field = "onboardingJob.webhookUri";
        let none = TargetPolicy::default();
        let public = resolver(&["93.184.216.34"]);
        check_webhook_uri(&none, &public, field, "").await.unwrap();
        check_webhook_uri(&none, &public, field, "https://hooks.example.com/jobs")
            .await
            .unwrap();
        let refused = check_webhook_uri(&none, &public, field, "https://10.0.0.1/")
            .await
            .unwrap_err();
        assert_eq!(refused.reason, "URL_FORBIDDEN_ADDRESS");
        assert_eq!(
            refused.metadata.get("field").map(String::as_str),
            Some(field)
        );
        let long = format!("https://hooks.example.com/{}", "a".repeat(MAX_URL));
        let too_long = check_webhook_uri(&none, &public, field, &long)
            .await
            .unwrap_err();
        assert_eq!(too_long.field_violations[0].field, field);
        let loopback = check_webhook_uri(
            &none,
            &resolver(&["127.0.0.1"]),
            field,
            "https://localhost/",
        )
        .await
        .unwrap_err();
        assert_eq!(loopback.reason, "URL_FORBIDDEN_ADDRESS");
        let allowed = TargetPolicy::parse("localhost").unwrap();
        check_webhook_uri(
            &allowed,
            &resolver(&["127.0.0.1"]),
            field,
            "http://localhost:9/",
        )
        .await
        .unwrap();
    }
}
