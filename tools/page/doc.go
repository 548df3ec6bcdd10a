// Package page implements the paging protocol of yorozu's tools: the
// "---page-info---" footer that ends a partial result and the signed,
// expiring continuation tokens the model passes back as continue_from.
//
// A token is base64url(compact ASCII JSON {"v":1,"tool":…,"exp":…,…payload})
// + "." + base64url(HMAC-SHA256 of the first part). Tokens are stateless:
// everything needed to continue is inside, and the signature keeps the model
// from steering a continuation anywhere the tool did not send it.
package page
