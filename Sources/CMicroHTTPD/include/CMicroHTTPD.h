#ifndef TOLLGATE_CMICROHTTPD_H
#define TOLLGATE_CMICROHTTPD_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// Limits and threading for one daemon; every field is set by the caller.
typedef struct tg_mhd_settings {
  /// IPv4 address to bind, dotted quad ("127.0.0.1", "0.0.0.0").
  const char *bind_address;
  uint16_t port;
  unsigned int thread_pool_size;
  unsigned int connection_limit;
  unsigned int per_ip_connection_limit;
  unsigned int connection_timeout_seconds;
  size_t connection_memory_limit;
  /// Counts open connections (see tg_mhd_counter_new); may be NULL.
  struct tg_mhd_counter *counter;
} tg_mhd_settings;

/// Open connections of one daemon, kept by libmicrohttpd's connection notifications.
struct tg_mhd_counter;
struct tg_mhd_counter *tg_mhd_counter_new(void);
void tg_mhd_counter_free(struct tg_mhd_counter *counter);
long tg_mhd_counter_open(const struct tg_mhd_counter *counter);

/// Starts a daemon with an internal epoll thread pool and suspend/resume allowed.
/// Returns NULL when the address is invalid or the port cannot be bound.
struct MHD_Daemon *tg_mhd_start(const tg_mhd_settings *settings,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls);

/// The port the daemon is bound to (useful after binding port 0).
uint16_t tg_mhd_bound_port(struct MHD_Daemon *daemon);

/// Writes the peer's IPv4 or IPv6 address as text into `out` (at least 64 bytes); returns 0,
/// or -1 when it is not known.
int tg_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size);

#endif
