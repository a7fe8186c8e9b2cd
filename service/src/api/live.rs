//! Opening a live event stream: tenancy, the per-account limit, and where it starts.

use super::{ApiError, ApiResult, Service};
use crate::live::{follow, parse_last_event_id};
use crate::store::Store;
use crate::store::alerts::{AlertStore, EventFilter};
use asset_alerting_models::Event;
use futures_util::Stream;
use uuid::Uuid;

impl<S: Store + AlertStore + Clone + Send> Service<S> {
    /// The account's events as they are stored, after the stream position `last_event_id` or,
    /// without one, after the newest stored now; each with its position.
    pub async fn stream_events(
        &self,
        principal: Uuid,
        account: Uuid,
        filter: EventFilter,
        last_event_id: Option<&str>,
    ) -> ApiResult<impl Stream<Item = (i64, Event)> + Send + use<S>> {
        self.visible(principal, account).await?;
        let resume = match last_event_id {
            Some(value) => parse_last_event_id(value).map_err(ApiError::Invalid)?,
            None => None,
        };
        self.follow_events(account, filter, resume).await
    }

    /// [`Service::stream_events`] for a caller already allowed to see `account` (the portal).
    pub async fn follow_events(
        &self,
        account: Uuid,
        filter: EventFilter,
        after: Option<i64>,
    ) -> ApiResult<impl Stream<Item = (i64, Event)> + Send + use<S>> {
        let hub = &self.alerting.live;
        let slot = hub.open(account).await?.ok_or(ApiError::TooManyStreams)?;
        let after = match after {
            Some(after) => after,
            None => self.store.event_stream_head().await?,
        };
        Ok(follow(hub, self.store.clone(), slot, filter, after))
    }
}
