/* The ceiling for Tollgate's HTTP stack: libmicrohttpd with the server's thread settings
 * (internal epoll thread pool), answering every request with the same file's bytes and the
 * same headers Tollgate sends for a default-audience flow. Benchmark tool only.
 * usage: bare_responder PORT FILE THREADS */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *body;
static size_t body_size;

static enum MHD_Result answer(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **con_cls) {
  (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
  /* Answer on the second call, once the request is complete, as Tollgate does: a response
   * queued on the first call makes libmicrohttpd close the connection afterwards. */
  static int first_call_marker;
  if (*con_cls == NULL) {
    *con_cls = &first_call_marker;
    return MHD_YES;
  }
  *upload_data_size = 0;
  struct MHD_Response *response =
      MHD_create_response_from_buffer(body_size, body, MHD_RESPMEM_PERSISTENT);
  MHD_add_response_header(response, "Content-Type", "application/json; charset=utf-8");
  MHD_add_response_header(response, "ETag", "\"0123456789abcdef0123456789abcdef\"");
  MHD_add_response_header(response, "Cache-Control", "public, max-age=60");
  enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s PORT FILE THREADS\n", argv[0]);
    return 2;
  }
  FILE *file = fopen(argv[2], "rb");
  if (!file) return 1;
  fseek(file, 0, SEEK_END);
  body_size = (size_t)ftell(file);
  fseek(file, 0, SEEK_SET);
  body = malloc(body_size);
  if (fread(body, 1, body_size, file) != body_size) return 1;
  fclose(file);
  struct MHD_Daemon *daemon = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, (uint16_t)atoi(argv[1]), NULL, NULL, &answer, NULL,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)atoi(argv[3]), MHD_OPTION_CONNECTION_LIMIT, 1024u,
      MHD_OPTION_CONNECTION_TIMEOUT, 15u, MHD_OPTION_END);
  if (!daemon) return 1;
  for (;;) pause();
}
