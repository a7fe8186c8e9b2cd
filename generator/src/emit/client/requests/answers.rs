//! Reading an answer: the arms of `send`'s match on the status, each decoding its documented body
//! (or stream) and headers into the success value or the operation's error enum; paging streams.

use super::*;

/// What the arms of a status `match` read.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Source {
    /// `answer`, a `codec::Answer` read in full: the plain `decode` function of an operation that
    /// answers no stream.
    Answer,
    /// `response`, the `reqwest::Response` itself: an operation that may answer a stream.
    Response,
}

fn read_shape(root: &TokenStream, shape: &Shape, source: Source) -> TokenStream {
    if source == Source::Answer {
        return match shape {
            Shape::Empty => quote! { answer.empty() },
            Shape::Json(_) => quote! { answer.json() },
            Shape::Text => quote! { answer.text() },
            Shape::Bytes => quote! { answer.bytes() },
            Shape::TypedBytes => quote! { answer.binary() },
            Shape::Stream(_) => unreachable!("an answer read in full holds no stream"),
        };
    }
    match shape {
        Shape::Empty => quote! { #root::codec::empty(response).await },
        Shape::Json(_) => quote! { #root::codec::json(response).await },
        Shape::Text => quote! { #root::codec::text(response).await },
        Shape::Bytes => quote! { #root::codec::bytes(response).await },
        Shape::TypedBytes => quote! { #root::codec::binary(response).await },
        Shape::Stream(shape) => {
            let read = stream_reader(root, &shape.format, quote! { response });
            quote! { Ok(#read) }
        }
    }
}

/// Whether a success of the plan may be a stream (its `send` then keeps the response until it
/// knows the status).
pub(super) fn answers_stream(p: &Plan) -> bool {
    match &p.success {
        Success::Single(shape) => matches!(shape, Shape::Stream(_)),
        Success::Enum(variants) => variants.iter().any(|v| matches!(v.shape, Shape::Stream(_))),
    }
}

/// The stream type that reads `format`: `Events`, or `Lines` with its delimiter.
fn stream_kind(root: &TokenStream, format: &StreamFormat) -> (TokenStream, Option<TokenStream>) {
    let delimiter = |name| Some(quote! { , #root::stream::Delimiter::#name });
    match format {
        StreamFormat::EventStream => (quote! { #root::stream::Events }, None),
        StreamFormat::JsonLines => (quote! { #root::stream::Lines }, delimiter(quote! { Line })),
        StreamFormat::JsonSeq => (
            quote! { #root::stream::Lines },
            delimiter(quote! { RecordSeparator }),
        ),
    }
}

/// A stream's reader over the response `response` evaluates to.
fn stream_reader(root: &TokenStream, format: &StreamFormat, response: TokenStream) -> TokenStream {
    let (ty, delimiter) = stream_kind(root, format);
    quote! { #ty::new(#response #delimiter) }
}

/// The statuses of one arm as a pattern, or `None` when `earlier` arms claim them all. A range
/// leaves out the codes earlier arms match (clippy's `match_overlapping_arm`), and an arm covering one
/// contiguous span is written as one range (clippy's `manual_range_patterns`: `4XX` and `5XX`
/// together are `400..=599`).
fn arm_pattern(statuses: &[Status], earlier: &[Arm]) -> Option<TokenStream> {
    if statuses == [Status::Default] {
        return Some(quote! { _ });
    }
    let mut spans: Vec<(u16, u16)> = Vec::new();
    for status in statuses {
        match *status {
            Status::Code(code) => spans.push((code, code)),
            Status::Range(first) => {
                let (mut low, high) = (first * 100, first * 100 + 99);
                let claimed = earlier.iter().flat_map(|a| &a.statuses);
                let mut cuts: Vec<u16> = claimed
                    .filter_map(|s| match s {
                        Status::Code(code) if (low..=high).contains(code) => Some(*code),
                        _ => None,
                    })
                    .collect();
                cuts.sort_unstable();
                for cut in cuts {
                    if cut > low {
                        spans.push((low, cut - 1));
                    }
                    low = cut + 1;
                }
                if low <= high {
                    spans.push((low, high));
                }
            }
            Status::Default => {}
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_unstable();
    let has_range = spans.iter().any(|(low, high)| low != high);
    let contiguous = spans.windows(2).all(|w| w[1].0 <= w[0].1.saturating_add(1));
    if spans.len() > 1 && contiguous && (spans.len() >= 3 || has_range) {
        spans = vec![(
            spans[0].0,
            spans.iter().map(|s| s.1).max().unwrap_or(spans[0].1),
        )];
    }
    let patterns = spans.iter().map(|&(low, high)| {
        let (low_lit, high_lit) = (Literal::u16_unsuffixed(low), Literal::u16_unsuffixed(high));
        if low == high {
            quote! { #low_lit }
        } else {
            quote! { #low_lit..=#high_lit }
        }
    });
    Some(quote! { #(#patterns)|* })
}

impl<'a> RequestEmitter<'a> {
    /// The type of a stream's items, in `Events` or `Lines`.
    pub(super) fn stream_type(&self, shape: &StreamShape, err_ty: &TokenStream) -> TokenStream {
        let item = self.printer.rust_type(&shape.item);
        let (ty, _) = stream_kind(&self.root, &shape.format);
        quote! { #ty<#item, #err_ty> }
    }

    /// `send_stream`, and `send_stream_reconnecting` for a resumable event stream.
    pub(super) fn stream_methods(
        &self,
        p: &Plan,
        stream: &StreamPlan,
        err_ty: &TokenStream,
        cloned: bool,
    ) -> TokenStream {
        let root = &self.root;
        let ty = self.stream_type(&stream.shape, err_ty);
        let media = &stream.shape.media;
        let wrap = stream_reader(
            root,
            &stream.shape.format,
            quote! { self.open_stream().await? },
        );
        let doc = wrapped_doc(&format!(
            "Sends the request asking for `{media}` and answers the stream of its items, each decoded as it arrives{}. Dropping the stream closes the connection.",
            match stream.shape.format {
                StreamFormat::EventStream =>
                    " (an event stream ends at `data: [DONE]` or when the server closes it)",
                _ => "",
            }
        ));
        let reconnecting = stream.last_event_id.as_ref().filter(|_| cloned).map(|field| {
            let field = ident(field);
            let doc = wrapped_doc(&format!(
                "Like [`send_stream`](Self::send_stream), but when the server closes the stream before `data: [DONE]` (or the connection breaks), waits the `retry` it last sent (3 s until it sends one) and sends the request again with `Last-Event-ID` set to the last event id it sent. `{}` answering `204 No Content`, or an error, ends the stream.",
                request_line(p.op)
            ));
            quote! {
                #doc
                pub async fn send_stream_reconnecting(self) -> Result<#ty, #root::Error<#err_ty>> {
                    let again = self.clone();
                    let first = self.open_stream().await?;
                    Ok(#root::stream::Events::reconnecting(
                        first,
                        Box::new(move |last_event_id| {
                            let mut request = again.clone();
                            if last_event_id.is_some() {
                                request.#field = last_event_id;
                            }
                            Box::pin(request.open_stream())
                        }),
                    ))
                }
            }
        });
        quote! {
            #doc
            pub async fn send_stream(self) -> Result<#ty, #root::Error<#err_ty>> {
                Ok(#wrap)
            }
            #reconnecting
        }
    }

    /// The arms of the status `match`; `stream`: of `open_stream`, which answers the response of
    /// a success.
    pub(super) fn arms(&self, p: &Plan, stream: bool, source: Source) -> TokenStream {
        let root = &self.root;
        let arm = |(i, arm): (usize, &Arm)| {
            let pattern = arm_pattern(&arm.statuses, &p.arms[..i])?;
            let action = match &arm.handling {
                Handling::Success(_) if stream => quote! { Ok(response) },
                Handling::Success(None) => match &p.success {
                    Success::Single(shape) => read_shape(root, shape, source),
                    Success::Enum(_) => unreachable!("enum success arms carry their variant"),
                },
                Handling::Success(Some(index)) => {
                    let Success::Enum(variants) = &p.success else {
                        unreachable!("variant index without enum")
                    };
                    let variant = &variants[*index];
                    let (enum_name, vname) = (ident(&p.type_name), ident(&variant.name));
                    let path = quote! { #root::responses::#enum_name::#vname };
                    let read = read_shape(root, &variant.shape, source);
                    match (&variant.shape, variant.boxed) {
                        (Shape::Empty, _) => quote! {{
                            #read?;
                            Ok(#path)
                        }},
                        (_, true) => quote! { Ok(#path(Box::new(#read?))) },
                        (_, false) => quote! { Ok(#path(#read?)) },
                    }
                }
                Handling::Error(index) => self.error_arm(p, *index, source),
                Handling::Unexpected if source == Source::Answer => {
                    quote! { Err(answer.unexpected()) }
                }
                Handling::Unexpected => quote! { Err(#root::codec::unexpected(response).await) },
            };
            Some(quote! { #pattern => #action, })
        };
        p.arms.iter().enumerate().filter_map(arm).collect()
    }

    /// Reads a documented error: its headers, then its body, into its variant of `Error::Api`.
    fn error_arm(&self, p: &Plan, index: usize, source: Source) -> TokenStream {
        let root = &self.root;
        let variant = &p.errors[index];
        let (enum_name, vname) = (ident(&p.type_name), ident(&variant.name));
        let path = quote! { #root::errors::#enum_name::#vname };
        let fields: Vec<_> = variant.headers.iter().map(|h| ident(&h.field)).collect();
        let wires = variant.headers.iter().map(|h| &h.wire);
        let body = if variant.boxed {
            quote! { Box::new(body) }
        } else {
            quote! { body }
        };
        // A tuple variant's constructor is itself the function (clippy's `redundant_closure`).
        let build = match (
            fields.is_empty(),
            variant.shape == Shape::Empty,
            variant.boxed,
        ) {
            (true, _, false) => quote! { #path },
            (true, _, true) => quote! { |body| #path(#body) },
            (false, true, _) => quote! { #path { #(#fields),* } },
            (false, false, false) => quote! { |body| #path { body, #(#fields),* } },
            (false, false, true) => quote! { |body| #path { body: #body, #(#fields),* } },
        };
        let reader = match &variant.shape {
            Shape::Empty => quote! { api_empty },
            Shape::Text => quote! { api_text },
            Shape::Bytes => quote! { api_bytes },
            Shape::TypedBytes => quote! { api_binary },
            Shape::Json(_) | Shape::Stream(_) => quote! { api_json },
        };
        let read = match source {
            Source::Answer => quote! { Err(answer.#reader(#build)) },
            Source::Response => quote! { Err(#root::codec::#reader(response, #build).await) },
        };
        let headers = wires.map(|wire| match source {
            Source::Answer => quote! { answer.header(#wire) },
            Source::Response => quote! { #root::codec::header(&response, #wire) },
        });
        if fields.is_empty() {
            read
        } else {
            quote! {{
                #(let #fields = #headers;)*
                #read
            }}
        }
    }

    /// `into_stream` of a paged list: every item, page after page.
    pub(super) fn paged_stream(&self, paging: &Paging, err_ty: &TokenStream) -> TokenStream {
        let root = &self.root;
        let skip = ident(&paging.skip.name);
        let take = ident(&paging.take.name);
        let number = primitive(paging.number);
        let item = self.printer.rust_type(&paging.item);
        // A default the page size's type cannot hold falls back to the plan's own 50.
        let default_take = number_literal(paging.number, &paging.default_take.into(), true)
            .unwrap_or(quote! { 50 });
        let doc = wrapped_doc(&format!(
            "Every item, page after page: sends the request with `{skip}` advanced by the length of each page and `{take}` as the page size (the value set, else {}), until a page comes back shorter than that. A failed page ends the stream with its error.",
            paging.default_take,
            skip = paging.skip.wire_name,
            take = paging.take.wire_name,
        ));
        quote! {
            #doc
            pub fn into_stream(self) -> #root::Paged<#item, #err_ty> {
                let take: #number = self.#take.unwrap_or(#default_take);
                let start: #number = self.#skip.unwrap_or(0);
                let pages = ::futures_util::stream::try_unfold(Some((self, start)), move |state| async move {
                    let Some((request, skip)) = state else {
                        return Ok::<_, #root::Error<#err_ty>>(None);
                    };
                    let mut page_request = request.clone();
                    page_request.#skip = Some(skip);
                    page_request.#take = Some(take);
                    let page = page_request.send().await?;
                    let next = match #number::try_from(page.len()) {
                        Ok(length) if length == take && length > 0 => skip.checked_add(length).map(|next| (request, next)),
                        _ => None,
                    };
                    Ok(Some((::futures_util::stream::iter(page.into_iter().map(Ok::<#item, #root::Error<#err_ty>>)), next)))
                });
                #root::Paged::new(::futures_util::TryStreamExt::try_flatten(pages))
            }
        }
    }
}
