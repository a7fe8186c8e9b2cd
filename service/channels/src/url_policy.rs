//! Which callback URLs and which addresses a webhook may reach: checked when an account sets
//! its callbackUri, and again after DNS resolution at every send (DNS rebinding).

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// What a callback URL may point at. The default allows neither: https to public addresses only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct UrlPolicy {
    /// Allow `http://` as well as `https://`.
    pub allow_http: bool,
    /// Allow loopback, private, link-local and other non-public addresses (tests, on-premises).
    pub allow_private: bool,
}

impl UrlPolicy {
    /// Whether a connection to `ip` is allowed.
    pub fn allows_ip(&self, ip: IpAddr) -> bool {
        self.allow_private || is_public(ip)
    }

    fn allows_domain(&self, domain: &str) -> bool {
        self.allow_private || !is_localhost_name(domain)
    }
}

/// Parses and checks a callbackUri: http(s) as the policy allows, no userinfo, and a host that
/// is neither `localhost` nor a non-public IP literal unless the policy allows private targets.
pub fn validate_callback_uri(uri: &str, policy: &UrlPolicy) -> Result<Url, String> {
    const MAX_LEN: usize = 2048;
    if uri.len() > MAX_LEN {
        return Err(format!("longer than {MAX_LEN} characters"));
    }
    let url = Url::parse(uri).map_err(|e| format!("not a valid absolute URL: {e}"))?;
    match url.scheme() {
        "https" => {}
        "http" if policy.allow_http => {}
        "http" => return Err("must use https".into()),
        other => return Err(format!("scheme {other:?} is not allowed; use https")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not contain a user name or password".into());
    }
    // The URL parser has already turned forms like `0x7f.1` or `2130706433` into IP literals.
    match url.host() {
        None => return Err("has no host".into()),
        Some(Host::Domain(domain)) if !policy.allows_domain(domain) => {
            return Err(format!("host {domain:?} is a local name"));
        }
        Some(Host::Ipv4(ip)) if !policy.allows_ip(ip.into()) => {
            return Err(format!("host {ip} is not a public address"));
        }
        Some(Host::Ipv6(ip)) if !policy.allows_ip(ip.into()) => {
            return Err(format!("host [{ip}] is not a public address"));
        }
        Some(_) => {}
    }
    Ok(url)
}

/// `localhost` and its subdomains always mean this machine (RFC 6761).
fn is_localhost_name(domain: &str) -> bool {
    let domain = domain.trim_end_matches('.').to_ascii_lowercase();
    domain == "localhost" || domain.ends_with(".localhost")
}

/// Whether `ip` is an ordinary public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // CGNAT, 100.64.0.0/10
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240) // reserved
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // Addresses that carry an IPv4 address are judged by it: ::ffff:127.0.0.1 is loopback.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    let segments = ip.segments();
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        // NAT64 well-known prefix
        let [_, _, _, _, _, _, hi, lo] = segments;
        return is_public_v4(Ipv4Addr::from((u32::from(hi) << 16) | u32::from(lo)));
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
        || segments[0] & 0xffc0 == 0xfec0 // site-local (deprecated)
        || (segments[0] == 0x2001 && segments[1] == 0xdb8) // documentation
        || segments[..6] == [0, 0, 0, 0, 0, 0]) // IPv4-compatible (deprecated)
}

/// The resolution failure that the send-time guard reports.
#[derive(Debug)]
pub struct BlockedAddress {
    name: String,
}

impl fmt::Display for BlockedAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} resolves only to addresses the URL policy refuses (loopback, private, ...)",
            self.name
        )
    }
}

impl std::error::Error for BlockedAddress {}

/// The system resolver (getaddrinfo, on tokio's blocking pool).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let addrs: Vec<SocketAddr> =
                tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

/// Resolves with `inner`, then drops the addresses the policy refuses, so that a name that
/// resolved to a public address when the callbackUri was set cannot later point us at
/// 127.0.0.1 or the cloud metadata service.
pub(crate) struct GuardedResolver {
    pub(crate) policy: UrlPolicy,
    pub(crate) inner: Arc<dyn Resolve>,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy;
        let host = name.as_str().to_owned();
        if !policy.allows_domain(&host) {
            return Box::pin(async move { Err(BlockedAddress { name: host }.into()) });
        }
        let resolving = self.inner.resolve(name);
        Box::pin(async move {
            let allowed: Vec<SocketAddr> = resolving
                .await?
                .filter(|addr| policy.allows_ip(addr.ip()))
                .collect();
            if allowed.is_empty() {
                return Err(BlockedAddress { name: host }.into());
            }
            Ok(Box::new(allowed.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: UrlPolicy = UrlPolicy {
        allow_http: false,
        allow_private: false,
    };
    const HTTP: UrlPolicy = UrlPolicy {
        allow_http: true,
        allow_private: false,
    };
    const PRIVATE: UrlPolicy = UrlPolicy {
        allow_http: false,
        allow_private: true,
    };
    const ANY: UrlPolicy = UrlPolicy {
        allow_http: true,
        allow_private: true,
    };

    #[test]
    fn callback_uri_table() {
        // (uri, strict, http allowed, private allowed, both allowed)
        let table: &[(&str, [bool; 4])] = &[
            ("https://hooks.example.com/alerts", [true, true, true, true]),
            (
                "https://hooks.example.com:8443/a?b=c",
                [true, true, true, true],
            ),
            ("https://93.184.216.34/x", [true, true, true, true]),
            ("https://[2606:2800:220:1::]/x", [true, true, true, true]),
            (
                "http://hooks.example.com/alerts",
                [false, true, false, true],
            ),
            (
                "ftp://hooks.example.com/alerts",
                [false, false, false, false],
            ),
            (
                "https://user:pw@hooks.example.com/",
                [false, false, false, false],
            ),
            (
                "https://user@hooks.example.com/",
                [false, false, false, false],
            ),
            ("hooks.example.com/alerts", [false, false, false, false]),
            ("https://127.0.0.1/x", [false, false, true, true]),
            ("https://127.8.9.10/x", [false, false, true, true]),
            ("http://127.0.0.1:8080/x", [false, false, false, true]),
            ("https://10.1.2.3/x", [false, false, true, true]),
            ("https://172.16.0.1/x", [false, false, true, true]),
            ("https://192.168.1.10/x", [false, false, true, true]),
            (
                "https://169.254.169.254/latest/meta-data",
                [false, false, true, true],
            ),
            ("https://100.64.0.1/x", [false, false, true, true]),
            ("https://0.0.0.0/x", [false, false, true, true]),
            ("https://224.0.0.1/x", [false, false, true, true]),
            ("https://[::1]/x", [false, false, true, true]),
            ("https://[::]/x", [false, false, true, true]),
            ("https://[fe80::1]/x", [false, false, true, true]),
            ("https://[fd00::1]/x", [false, false, true, true]),
            ("https://[ff02::1]/x", [false, false, true, true]),
            ("https://[::ffff:127.0.0.1]/x", [false, false, true, true]),
            ("https://[::ffff:10.0.0.1]/x", [false, false, true, true]),
            ("https://[64:ff9b::a9fe:a9fe]/x", [false, false, true, true]),
            ("https://2130706433/x", [false, false, true, true]), // 127.0.0.1 as one number
            ("https://0x7f.1/x", [false, false, true, true]),
            ("https://localhost/x", [false, false, true, true]),
            ("https://LOCALHOST./x", [false, false, true, true]),
            ("https://api.localhost/x", [false, false, true, true]),
            ("https://localhost.example.com/x", [true, true, true, true]),
        ];
        for (uri, expected) in table {
            for (policy, allowed) in [STRICT, HTTP, PRIVATE, ANY].iter().zip(expected) {
                let result = validate_callback_uri(uri, policy);
                assert_eq!(
                    result.is_ok(),
                    *allowed,
                    "{uri} under {policy:?}: {result:?}"
                );
            }
        }
    }

    #[test]
    fn too_long_uris_are_refused() {
        let uri = format!("https://example.com/{}", "a".repeat(3000));
        assert!(validate_callback_uri(&uri, &ANY).is_err());
    }

    #[test]
    fn public_addresses() {
        for ip in ["8.8.8.8", "93.184.216.34", "2606:4700::1111", "100.128.0.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in [
            "192.0.2.1",
            "198.18.0.1",
            "255.255.255.255",
            "240.0.0.1",
            "2001:db8::1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    async fn resolve(policy: UrlPolicy, name: &str) -> Result<Vec<SocketAddr>, String> {
        let resolver = GuardedResolver {
            policy,
            inner: Arc::new(SystemResolver),
        };
        match resolver.resolve(name.parse().unwrap()).await {
            Ok(addrs) => Ok(addrs.collect()),
            Err(e) => Err(e.to_string()),
        }
    }

    #[tokio::test]
    async fn the_guard_refuses_names_resolving_to_loopback() {
        let refused = resolve(HTTP, "localhost").await.unwrap_err();
        assert!(refused.contains("policy refuses"), "{refused}");
        let addrs = resolve(ANY, "localhost").await.unwrap();
        assert!(addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
    }
}
