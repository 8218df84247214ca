#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

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
                          MHD_OPTION_END);
}

uint16_t tg_mhd_bound_port(struct MHD_Daemon *daemon) {
  const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
  return info == NULL ? 0 : info->port;
}
