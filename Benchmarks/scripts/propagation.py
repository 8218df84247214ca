"""How long a configuration change takes to reach every instance: PUTs the configuration to the
first instance, then reads a placement's default-audience answer from every other instance
(each in its own thread, every 2 ms) until it carries the new revision. Prints the slowest
instance's delay and each one's, in milliseconds."""
import json
import sys
import threading
import time
import urllib.request

admin_key, public_key, config_path, ports = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]


def revision(port):
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/sdk/placements/p0/default", headers={"Authorization": f"Api-Key {public_key}"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.load(answer)["placement"]["revision"]


before = revision(ports[0])
request = urllib.request.Request(
    f"http://127.0.0.1:{ports[0]}/v1/admin/config", data=open(config_path, "rb").read(), method="PUT",
    headers={"Authorization": f"Bearer {admin_key}", "Content-Type": "application/json"})
start = time.monotonic()
with urllib.request.urlopen(request, timeout=30) as answer:
    answer.read()
applied = time.monotonic()
delays = {}


def watch(port):
    while time.monotonic() - applied < 10:
        if revision(port) > before:
            delays[port] = (time.monotonic() - applied) * 1000
            return
        time.sleep(0.002)


threads = [threading.Thread(target=watch, args=(port,)) for port in ports[1:]]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
if len(delays) < len(ports) - 1:
    print(f"not every instance within 10 s ({len(delays)} of {len(ports) - 1})")
else:
    each = ", ".join(f"{delays[port]:.0f}" for port in ports[1:])
    print(f"{max(delays.values()):.0f} ms after the PUT answered (instances: {each} ms; PUT took {(applied - start) * 1000:.0f} ms)")
