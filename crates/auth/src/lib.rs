//! Bearer-token verification and the embedded OAuth 2.0 authorization server.
