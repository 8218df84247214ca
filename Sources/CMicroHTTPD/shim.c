#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct tg_mhd_counter {
  atomic_long open;
};

struct tg_mhd_counter *tg_mhd_counter_new(void) {
  struct tg_mhd_counter *counter = malloc(sizeof(struct tg_mhd_counter));
  if (counter != NULL) atomic_init(&counter->open, 0);
  return counter;
}

void tg_mhd_counter_free(struct tg_mhd_counter *counter) { free(counter); }

long tg_mhd_counter_open(const struct tg_mhd_counter *counter) {
  return counter == NULL ? 0 : atomic_load(&((struct tg_mhd_counter *)counter)->open);
}

static void tg_notify_connection(void *cls, struct MHD_Connection *connection, void **socket_context,
                                 enum MHD_ConnectionNotificationCode code) {
  (void)connection;
  (void)socket_context;
  struct tg_mhd_counter *counter = cls;
  if (counter == NULL) return;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) atomic_fetch_add(&counter->open, 1);
  if (code == MHD_CONNECTION_NOTIFY_CLOSED) atomic_fetch_sub(&counter->open, 1);
}

struct MHD_Daemon *tg_mhd_start(const tg_mhd_settings *s,
                                MHD_AccessHandlerCallback handler, void *handler_cls,
                                MHD_RequestCompletedCallback completed, void *completed_cls) {
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(s->port);
  if (inet_pton(AF_INET, s->bind_address, &addr.sin_addr) != 1) {
    return NULL;
  }
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
                       MHD_USE_ERROR_LOG;
  return MHD_start_daemon(flags, s->port, NULL, NULL, handler, handler_cls,
                          MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                          MHD_OPTION_THREAD_POOL_SIZE, s->thread_pool_size,
                          MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
                          MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->per_ip_connection_limit,
                          MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout_seconds,
                          MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit,
                          MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                          MHD_OPTION_NOTIFY_CONNECTION, tg_notify_connection, s->counter,
                          MHD_OPTION_END);
}

uint16_t tg_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}

int tg_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == NULL || info->client_addr == NULL) return -1;
  const struct sockaddr *address = info->client_addr;
  if (address->sa_family == AF_INET) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
    return inet_ntop(AF_INET, &v4->sin_addr, out, (socklen_t)size) ? 0 : -1;
  }
  if (address->sa_family == AF_INET6) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
    return inet_ntop(AF_INET6, &v6->sin6_addr, out, (socklen_t)size) ? 0 : -1;
  }
  return -1;
}
