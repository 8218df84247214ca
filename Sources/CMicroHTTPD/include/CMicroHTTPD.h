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

/// A daemon with an internal epoll thread pool (suspend/resume allowed) fed by a listening
/// socket and an accepting thread of our own.
struct tg_server;

/// Binds, listens and starts; returns NULL when the address is invalid or the port cannot be
/// bound.
struct tg_server *tg_server_start(const tg_mhd_settings *settings, MHD_AccessHandlerCallback handler,
                                  void *handler_cls, MHD_RequestCompletedCallback completed, void *completed_cls);

/// The bound port (useful after binding port 0).
uint16_t tg_server_port(const struct tg_server *server);

/// Stops accepting and closes the listening socket: new connections are refused at once, open
/// ones go on. Safe to call twice.
void tg_server_stop_accepting(struct tg_server *server);

/// Stops accepting (if not yet), closes every connection, stops the threads and frees `server`.
void tg_server_stop(struct tg_server *server);

/// Writes the peer's IPv4 or IPv6 address as text into `out` (at least 64 bytes); returns 0,
/// or -1 when it is not known.
int tg_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size);

#endif
