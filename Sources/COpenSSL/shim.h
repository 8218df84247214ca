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

#include <openssl/rsa.h>
#include <openssl/param_build.h>
#include <openssl/core_names.h>

// EVP_RSA_gen is a variadic macro.
static inline EVP_PKEY *tg_EVP_RSA_gen(unsigned int bits) { return EVP_RSA_gen(bits); }
// EVP_PKEY_PUBLIC_KEY is a macro of macros.
static inline int tg_EVP_PKEY_PUBLIC_KEY(void) { return EVP_PKEY_PUBLIC_KEY; }

// A public key from its numbers (a JSON Web Key's n and e, or P-256's uncompressed point). In C
// because OSSL_PARAM_BLD keeps the parameter names' pointers until OSSL_PARAM_BLD_to_param, and
// a Swift string passed as `const char *` lives only for one call.
static inline EVP_PKEY *tg_public_key_fromdata(const char *type, OSSL_PARAM_BLD *builder) {
  EVP_PKEY *key = NULL;
  OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
  EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
  if (params == NULL || context == NULL || EVP_PKEY_fromdata_init(context) != 1
      || EVP_PKEY_fromdata(context, &key, EVP_PKEY_PUBLIC_KEY, params) != 1) {
    key = NULL;
  }
  EVP_PKEY_CTX_free(context);
  OSSL_PARAM_free(params);
  return key;
}

static inline EVP_PKEY *tg_rsa_public_key(const unsigned char *n, size_t n_length, const unsigned char *e,
                                          size_t e_length) {
  EVP_PKEY *key = NULL;
  OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
  BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
  BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
  if (builder != NULL && modulus != NULL && exponent != NULL
      && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1
      && OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
    key = tg_public_key_fromdata("RSA", builder);
  }
  BN_free(modulus);
  BN_free(exponent);
  OSSL_PARAM_BLD_free(builder);
  return key;
}

static inline EVP_PKEY *tg_p256_public_key(const unsigned char *point, size_t length) {
  EVP_PKEY *key = NULL;
  OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
  if (builder != NULL
      && OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1
      && OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, length) == 1) {
    key = tg_public_key_fromdata("EC", builder);
  }
  OSSL_PARAM_BLD_free(builder);
  return key;
}

// Parameter names for EVP_PKEY_get_*_param, as pointers that outlive the call.
static inline const char *tg_param_rsa_n(void) { return OSSL_PKEY_PARAM_RSA_N; }
static inline const char *tg_param_rsa_e(void) { return OSSL_PKEY_PARAM_RSA_E; }
static inline const char *tg_param_pub_key(void) { return OSSL_PKEY_PARAM_PUB_KEY; }
