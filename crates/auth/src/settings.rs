//! What the binary configures: the embedded issuer, the audience, the token lifetime
//! and the external OpenID Connect issuers to trust.

use std::net::IpAddr;
use std::time::Duration;

use reqwest::Url;
use rics_domain::Error;

/// How long access tokens of the embedded server live unless configured: 15 minutes.
pub const DEFAULT_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// The claim that names the caller's tenant unless configured otherwise.
pub const DEFAULT_TENANT_CLAIM: &str = "tenant";

/// The longest access-token lifetime accepted: one day.
const MAX_ACCESS_TOKEN_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The settings of authentication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthSettings {
    /// The embedded authorization server's issuer URL, the `iss` of its tokens, such as
    /// `https://rics.example.com` (no trailing slash: the endpoints are appended to
    /// it). Plain `http` is allowed: this URL only names the issuer.
    pub issuer: String,
    /// The audience every accepted token must name in `aud`, and the `aud` of the
    /// tokens the embedded server signs.
    pub audience: String,
    /// How long the embedded server's access tokens live.
    pub access_token_lifetime: Duration,
    /// External OpenID Connect issuers whose tokens are accepted too.
    pub external_issuers: Vec<ExternalIssuerSettings>,
}

impl AuthSettings {
    /// Settings with the default token lifetime and no external issuer.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> AuthSettings {
        AuthSettings {
            issuer: issuer.into(),
            audience: audience.into(),
            access_token_lifetime: DEFAULT_ACCESS_TOKEN_LIFETIME,
            external_issuers: Vec::new(),
        }
    }

    /// Adds an external issuer.
    #[must_use]
    pub fn with_external_issuer(mut self, issuer: ExternalIssuerSettings) -> AuthSettings {
        self.external_issuers.push(issuer);
        self
    }

    /// Checks the settings.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming the first bad setting: an embedded issuer that is not
    /// an absolute `http(s)` URL or ends with a slash; an external issuer that is not
    /// an absolute `https` URL (its keys are fetched from it: plain `http` is allowed on
    /// loopback hosts only, for tests and local identity providers); an empty audience
    /// or tenant claim; a lifetime outside one second to one day; or an issuer listed
    /// twice.
    pub fn validate(&self) -> Result<(), Error> {
        check_issuer_url("issuer", &self.issuer, false)?;
        if self.issuer.ends_with('/') {
            return Err(Error::invalid_field(
                "issuer",
                "TRAILING_SLASH",
                "the issuer URL must not end with a slash",
            ));
        }
        if self.audience.trim().is_empty() {
            return Err(Error::invalid_field(
                "audience",
                "REQUIRED",
                "the audience must not be empty",
            ));
        }
        if self.access_token_lifetime < Duration::from_secs(1)
            || self.access_token_lifetime > MAX_ACCESS_TOKEN_LIFETIME
        {
            return Err(Error::invalid_field(
                "accessTokenLifetime",
                "OUT_OF_RANGE",
                "the access token lifetime must be between one second and one day",
            ));
        }
        let mut seen = vec![self.issuer.as_str()];
        for (i, external) in self.external_issuers.iter().enumerate() {
            let field = format!("externalIssuers[{i}]");
            check_issuer_url(&format!("{field}.issuer"), &external.issuer, true)?;
            if seen.contains(&external.issuer.as_str()) {
                return Err(Error::invalid_field(
                    format!("{field}.issuer"),
                    "DUPLICATE_ISSUER",
                    "the issuer is configured twice",
                ));
            }
            seen.push(&external.issuer);
            if external.tenant_claim.trim().is_empty() {
                return Err(Error::invalid_field(
                    format!("{field}.tenantClaim"),
                    "REQUIRED",
                    "the tenant claim name must not be empty",
                ));
            }
        }
        Ok(())
    }
}

/// An external OpenID Connect issuer (Keycloak, Auth0, ...) whose access tokens are
/// accepted. Its keys are found by discovery at
/// `{issuer}/.well-known/openid-configuration`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalIssuerSettings {
    /// The issuer URL, exactly as in its tokens' `iss` and its discovery document's
    /// `issuer`.
    pub issuer: String,
    /// The claim holding the caller's tenant id.
    pub tenant_claim: String,
}

impl ExternalIssuerSettings {
    /// An issuer whose tokens name the tenant in the `tenant` claim.
    pub fn new(issuer: impl Into<String>) -> ExternalIssuerSettings {
        ExternalIssuerSettings {
            issuer: issuer.into(),
            tenant_claim: DEFAULT_TENANT_CLAIM.to_owned(),
        }
    }

    /// The same issuer with the tenant in another claim.
    #[must_use]
    pub fn with_tenant_claim(mut self, claim: impl Into<String>) -> ExternalIssuerSettings {
        self.tenant_claim = claim.into();
        self
    }
}

/// Refuses anything but an absolute `http(s)` URL without query or fragment; with
/// `fetched`, plain `http` only on loopback hosts.
fn check_issuer_url(field: &str, value: &str, fetched: bool) -> Result<(), Error> {
    let invalid = |description: &str| Err(Error::invalid_field(field, "INVALID_URL", description));
    let Ok(url) = Url::parse(value) else {
        return invalid("the issuer must be an absolute URL");
    };
    if url.query().is_some() || url.fragment().is_some() {
        return invalid("the issuer URL must not have a query or a fragment");
    }
    if fetched && !fetch_allowed(&url) {
        return invalid("the issuer URL must use https (http only on a loopback host)");
    }
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return invalid("the issuer URL must be an http or https URL with a host");
    }
    Ok(())
}

/// Whether keys may be fetched from `url`: `https`, or `http` on a loopback host.
pub(crate) fn fetch_allowed(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    match url.scheme() {
        "https" => true,
        "http" => {
            let host = host.trim_start_matches('[').trim_end_matches(']');
            host.eq_ignore_ascii_case("localhost")
                || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> AuthSettings {
        AuthSettings::new("https://rics.example.com", "rics")
    }

    #[test]
    fn defaults() {
        let settings = valid();
        assert_eq!(settings.access_token_lifetime, Duration::from_secs(900));
        assert!(settings.external_issuers.is_empty());
        assert_eq!(
            ExternalIssuerSettings::new("https://idp").tenant_claim,
            "tenant"
        );
        assert!(settings.validate().is_ok());
    }

    #[test]
    fn accepts_plain_http_where_nothing_is_fetched_from_it() {
        assert!(
            AuthSettings::new("http://rics:8080", "rics")
                .validate()
                .is_ok()
        );
    }

    #[test]
    fn accepts_loopback_http_and_external_issuers() {
        let settings = AuthSettings::new("http://127.0.0.1:8080", "rics")
            .with_external_issuer(
                ExternalIssuerSettings::new("https://idp.example.com/realms/rics")
                    .with_tenant_claim("org"),
            )
            .with_external_issuer(ExternalIssuerSettings::new("http://localhost:9000/"))
            .with_external_issuer(ExternalIssuerSettings::new("http://[::1]:9001"));
        assert!(settings.validate().is_ok());
    }

    #[test]
    fn refuses_bad_settings() {
        let cases = [
            (AuthSettings::new("rics.example.com", "rics"), "issuer"),
            (
                AuthSettings::new("https://rics.example.com/", "rics"),
                "issuer",
            ),
            (
                AuthSettings::new("https://rics.example.com?a=b", "rics"),
                "issuer",
            ),
            (AuthSettings::new("ftp://127.0.0.1", "rics"), "issuer"),
            (
                AuthSettings::new("https://rics.example.com", " "),
                "audience",
            ),
            (
                AuthSettings {
                    access_token_lifetime: Duration::ZERO,
                    ..valid()
                },
                "accessTokenLifetime",
            ),
            (
                AuthSettings {
                    access_token_lifetime: Duration::from_secs(2 * 24 * 3600),
                    ..valid()
                },
                "accessTokenLifetime",
            ),
            (
                valid().with_external_issuer(ExternalIssuerSettings::new("http://idp.example.com")),
                "externalIssuers[0].issuer",
            ),
            (
                valid()
                    .with_external_issuer(ExternalIssuerSettings::new("https://rics.example.com")),
                "externalIssuers[0].issuer",
            ),
            (
                valid().with_external_issuer(
                    ExternalIssuerSettings::new("https://idp.example.com").with_tenant_claim(""),
                ),
                "externalIssuers[0].tenantClaim",
            ),
        ];
        for (settings, field) in cases {
            let error = settings.validate().unwrap_err();
            assert_eq!(error.metadata["field"], field, "{settings:?}");
        }
    }
}
