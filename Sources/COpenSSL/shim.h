#include <openssl/sha.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/crypto.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/x509_vfy.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/pem.h>
#include <openssl/err.h>
#include <openssl/objects.h>

// OpenSSL's stack and key-generation helpers are macros (or variadic), which Swift cannot
// call: one-line functions give them a name.
static inline STACK_OF(X509) *tg_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int tg_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline void tg_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline EVP_PKEY *tg_EVP_EC_gen_P256(void) { return EVP_EC_gen("P-256"); }
static inline void tg_OPENSSL_free(void *pointer) { OPENSSL_free(pointer); }
static inline long tg_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
