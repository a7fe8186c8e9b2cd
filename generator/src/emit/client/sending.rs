//! A request builder's `send`, `send_full` and `IntoFuture`: the same items for every operation
//! but for three types.

use crate::emit::ident;
use proc_macro2::TokenStream;
use quote::quote;

/// What `send` answers: `ResponseFuture<ok, err>` (or `<ok, err, headers>`).
pub struct Sending<'a> {
    pub builder: &'a str,
    pub ok: TokenStream,
    pub err: TokenStream,
    /// The typed success headers, if the operation documents some.
    pub headers: Option<TokenStream>,
    /// `GET /albums/{id}`.
    pub request: String,
    /// The crate's root (see [`crate::emit::Root`]).
    pub root: &'a TokenStream,
}

/// `impl Builder { send, send_full }` and `impl IntoFuture for Builder`.
pub fn tokens(s: &Sending) -> TokenStream {
    let Sending {
        ok,
        err,
        headers,
        root,
        ..
    } = s;
    let builder = ident(s.builder);
    let headers = headers.iter();
    let args = quote! { #ok, #err #(, #headers)* };
    let send_doc = format!(" Sends the request: `{}`.", s.request);
    let full_doc = format!(
        " Sends the request (`{}`) and answers the body with the status and headers.",
        s.request
    );
    quote! {
        impl #builder {
            #[doc = #send_doc]
            pub fn send(self) -> #root::codec::ResponseFuture<#args> {
                #root::codec::ResponseFuture::new(Box::pin(self.exchange(false)))
            }
            #[doc = #full_doc]
            pub fn send_full(self) -> #root::codec::FullResponseFuture<#args> {
                Box::pin(self.exchange(true))
            }
        }
        impl ::std::future::IntoFuture for #builder {
            type Output = Result<#ok, #root::Error<#err>>;
            type IntoFuture = #root::codec::ResponseFuture<#args>;
            fn into_future(self) -> Self::IntoFuture {
                self.send()
            }
        }
    }
}
