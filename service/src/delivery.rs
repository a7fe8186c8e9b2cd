//! The delivery channels the configuration asks for. A channel left unconfigured stays empty, and
//! its notifications are recorded as `skipped` with the reason.

use crate::config::Config;
use asset_alerting_channels::{
    Channels, SmtpChannel, SmtpConfig, SmtpCredentials, SmtpTls, TelegramChannel, TelegramConfig,
    TwilioChannel, TwilioConfig, UrlPolicy, WebhookConfig, WebhookSender,
};
use std::sync::Arc;

pub fn callback_policy(config: &Config) -> UrlPolicy {
    UrlPolicy {
        allow_http: config.allow_http_callbacks,
        allow_private: config.allow_private_callbacks,
    }
}

pub fn channels(config: &Config) -> anyhow::Result<Channels> {
    let mut channels = Channels::default();
    if let Some(host) = &config.smtp_host {
        let tls = match config.smtp_tls.as_str() {
            "none" => SmtpTls::None,
            "tls" => SmtpTls::Implicit,
            _ => SmtpTls::StartTls,
        };
        let mut smtp = SmtpConfig::new(host, tls, &config.smtp_from);
        if let Some(port) = config.smtp_port {
            smtp.port = port;
        }
        if let (Some(username), Some(password)) = (&config.smtp_username, &config.smtp_password) {
            smtp.credentials = Some(SmtpCredentials {
                username: username.clone(),
                password: password.clone().into(),
            });
        }
        channels.email = Some(Arc::new(SmtpChannel::new(smtp)?));
    }
    if let Some(token) = &config.telegram_bot_token {
        let mut telegram = TelegramConfig::new(token.clone());
        telegram.base_url = config.telegram_api_url.clone();
        channels.telegram = Some(Arc::new(TelegramChannel::new(telegram)?));
    }
    if let (Some(sid), Some(token), Some(from)) = (
        &config.twilio_account_sid,
        &config.twilio_auth_token,
        &config.twilio_from,
    ) {
        let mut twilio = TwilioConfig::new(sid.clone(), token.clone(), from.clone());
        twilio.base_url = config.twilio_api_url.clone();
        let twilio: Arc<TwilioChannel> = Arc::new(TwilioChannel::new(twilio)?);
        channels.sms = Some(twilio.clone());
        channels.call = Some(twilio);
    }
    Ok(channels)
}

pub fn webhooks(config: &Config) -> anyhow::Result<WebhookSender> {
    Ok(WebhookSender::new(WebhookConfig::new(callback_policy(
        config,
    )))?)
}
