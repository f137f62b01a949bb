"""A download client that a test can cut short the way a real one is: a small receive buffer set before
connecting (SO_RCVBUF; Node cannot set it on its own sockets), read the response head and then a given
number of raw body bytes (chunked framing included), stop reading for a while, then close with what is
still unread. Writes what it read to stdout, base64.

    python3 slow-client.py <host> <port> <path> <bearer key> <rcvbuf bytes> <body bytes to read> <pause s>
"""
import base64
import socket
import sys
import time

host, port, path, key = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rcvbuf, want, pause = int(sys.argv[5]), int(sys.argv[6]), float(sys.argv[7])

s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
s.connect((host, port))
s.sendall(
    f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {key}\r\n"
    f"Connection: close\r\n\r\n".encode("ascii")
)
data = b""
head_end = -1
while True:
    if head_end < 0:
        head_end = data.find(b"\r\n\r\n")
    if head_end >= 0 and len(data) - (head_end + 4) >= want:
        break
    part = s.recv(min(1024, max(1, want - max(0, len(data) - head_end - 4))) if head_end >= 0 else 1024)
    if not part:
        break
    data += part
if head_end >= 0:
    data = data[: head_end + 4 + want]
time.sleep(pause)
s.close()
sys.stdout.write(base64.b64encode(data).decode("ascii"))
