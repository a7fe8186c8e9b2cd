//! E-mail addresses as SMTP takes them (RFC 5321): the `email_address` crate's grammar plus
//! the length limits, stated in the spec.

use email_address::{EmailAddress, Error, Options};

/// RFC 5321 section 4.5.3.1.1: a local part of at most 64 octets.
pub const MAX_LOCAL_PART: usize = 64;
/// RFC 5321 section 4.5.3.1.3 (a path of 256 octets, less the angle brackets).
pub const MAX_ADDRESS: usize = 254;

/// A bare address (`local@domain`, no display name): the 400 message names `field` and the
/// defect.
pub fn email_address(field: &str, value: &str) -> Result<(), String> {
    let local = value.rsplit_once('@').map_or(value, |(local, _)| local);
    if local.len() > MAX_LOCAL_PART {
        return Err(format!(
            "{field}: the local part (before @) has {} characters; RFC 5321 allows {MAX_LOCAL_PART}",
            local.len()
        ));
    }
    if value.len() > MAX_ADDRESS {
        return Err(format!(
            "{field}: the address has {} characters; RFC 5321 allows {MAX_ADDRESS}",
            value.len()
        ));
    }
    let options = Options::default().without_display_text();
    EmailAddress::parse_with_options(value, options)
        .map(drop)
        .map_err(|e| format!("{field}: not an e-mail address ({})", defect(&e)))
}

fn defect(error: &Error) -> &'static str {
    match error {
        Error::MissingSeparator => "no @",
        Error::LocalPartEmpty => "nothing before @",
        Error::DomainEmpty => "nothing after @",
        Error::LocalPartTooLong => "the local part is too long",
        Error::DomainTooLong => "the domain is too long",
        Error::SubDomainTooLong => "a domain label is longer than 63 characters",
        Error::SubDomainEmpty | Error::DomainInvalidSeparator => "an empty domain label",
        Error::UnbalancedQuotes => "unbalanced quotes",
        Error::InvalidIPAddress => "a malformed address literal",
        _ => "a character not allowed there",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_grammar() {
        assert_eq!(email_address("f", "ops@example.com"), Ok(()));
        let local = "a".repeat(64);
        assert_eq!(email_address("f", &format!("{local}@example.com")), Ok(()));
        let long_local = format!("{}@example.com", "a".repeat(390));
        let error = email_address("channel.email.emailAddress", &long_local).unwrap_err();
        assert!(
            error.starts_with("channel.email.emailAddress: the local part"),
            "{error}"
        );
        assert!(error.contains("390") && error.contains("64"), "{error}");
        let long_domain = format!("a@{}.com", vec!["b".repeat(60); 5].join("."));
        assert!(
            email_address("f", &long_domain)
                .unwrap_err()
                .contains("254")
        );
        for bad in [
            "no-at",
            "@example.com",
            "a@",
            "a b@example.com",
            "A <a@example.com>",
        ] {
            let error = email_address("f", bad).unwrap_err();
            assert!(
                error.starts_with("f: not an e-mail address"),
                "{bad}: {error}"
            );
        }
    }
}
