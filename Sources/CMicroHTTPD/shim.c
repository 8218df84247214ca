#define _GNU_SOURCE
#include "CMicroHTTPD.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

/* The listening socket is ours, not libmicrohttpd's: its epoll daemons with worker threads
 * race when quiesced (a worker and MHD_quiesce_daemon both remove the listening socket from
 * the epoll set, and the loser aborts the process). One thread accepts and hands each
 * connection over with MHD_add_connection; stopping it and closing the socket is our own,
 * race-free "stop accepting". */
struct tg_server {
  struct MHD_Daemon *daemon;
  int listener;
  int wake[2];
  pthread_t acceptor;
  atomic_bool accepting;
  uint16_t port;
};

static void *tg_accept_loop(void *context) {
  struct tg_server *server = context;
  struct pollfd fds[2] = {{.fd = server->listener, .events = POLLIN}, {.fd = server->wake[0], .events = POLLIN}};
  for (;;) {
    /* After EMFILE/ENFILE the backlog stays readable: wait a little instead of spinning. */
    static const int busy_wait_ms = 10;
    int saturated = 0;
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[1].revents != 0) break;
    for (;;) {
      struct sockaddr_storage address;
      socklen_t length = sizeof(address);
      int client = accept4(server->listener, (struct sockaddr *)&address, &length, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (client < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) saturated = 1;
        break;
      }
      /* Refused connections (limits) are closed by libmicrohttpd itself. */
      (void)MHD_add_connection(server->daemon, client, (struct sockaddr *)&address, length);
    }
    if (saturated) poll(&fds[1], 1, busy_wait_ms);
  }
  return NULL;
}

struct tg_server *tg_server_start(const tg_mhd_settings *s, MHD_AccessHandlerCallback handler, void *handler_cls,
                                  MHD_RequestCompletedCallback completed, void *completed_cls) {
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(s->port);
  if (inet_pton(AF_INET, s->bind_address, &addr.sin_addr) != 1) return NULL;
  struct tg_server *server = calloc(1, sizeof(struct tg_server));
  if (server == NULL) return NULL;
  server->wake[0] = server->wake[1] = -1;
  server->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  int on = 1;
  if (server->listener < 0 || setsockopt(server->listener, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
      bind(server->listener, (struct sockaddr *)&addr, sizeof(addr)) != 0 || listen(server->listener, SOMAXCONN) != 0 ||
      pipe2(server->wake, O_CLOEXEC) != 0) {
    goto failed;
  }
  struct sockaddr_in bound;
  socklen_t length = sizeof(bound);
  if (getsockname(server->listener, (struct sockaddr *)&bound, &length) != 0) goto failed;
  server->port = ntohs(bound.sin_port);
  unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC | MHD_USE_NO_LISTEN_SOCKET |
                       MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  server->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                                    MHD_OPTION_THREAD_POOL_SIZE, s->thread_pool_size,
                                    MHD_OPTION_CONNECTION_LIMIT, s->connection_limit,
                                    MHD_OPTION_PER_IP_CONNECTION_LIMIT, s->per_ip_connection_limit,
                                    MHD_OPTION_CONNECTION_TIMEOUT, s->connection_timeout_seconds,
                                    MHD_OPTION_CONNECTION_MEMORY_LIMIT, s->connection_memory_limit,
                                    MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                                    MHD_OPTION_NOTIFY_CONNECTION, tg_notify_connection, s->counter,
                                    MHD_OPTION_END);
  if (server->daemon == NULL) goto failed;
  atomic_init(&server->accepting, true);
  if (pthread_create(&server->acceptor, NULL, tg_accept_loop, server) != 0) {
    MHD_stop_daemon(server->daemon);
    goto failed;
  }
  return server;
failed:
  if (server->listener >= 0) close(server->listener);
  if (server->wake[0] >= 0) close(server->wake[0]);
  if (server->wake[1] >= 0) close(server->wake[1]);
  free(server);
  return NULL;
}

uint16_t tg_server_port(const struct tg_server *server) { return server->port; }

void tg_server_stop_accepting(struct tg_server *server) {
  bool expected = true;
  if (!atomic_compare_exchange_strong(&server->accepting, &expected, false)) return;
  char byte = 1;
  while (write(server->wake[1], &byte, 1) < 0 && errno == EINTR) {
  }
  pthread_join(server->acceptor, NULL);
  close(server->listener);
  close(server->wake[0]);
  close(server->wake[1]);
}

void tg_server_stop(struct tg_server *server) {
  tg_server_stop_accepting(server);
  MHD_stop_daemon(server->daemon);
  free(server);
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
