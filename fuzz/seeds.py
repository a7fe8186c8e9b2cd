#!/usr/bin/env python3
"""Writes the fuzz targets' starting corpora under fuzz/corpus/<target>/ from the repository's
fixtures: the Style Examples rows of tests/fixtures/param-styles.yaml, form, multipart and JSON
bodies; Teltonika's documented example packets and simulator-like streams; OsmAnd reports as the
Traccar Client sends them; the fixture documents. The committed corpora are what fuzzing made of these
seeds, minimised to the inputs that add coverage edges; the generator's keeps only those of at
most 1 KB, since the fixture documents are large and in the repository already."""
import json, os, struct, sys, glob

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The folder to write into: the first argument, else fuzz/corpus/. CI writes the seeds beside the
# committed corpora (which keep only small inputs) so the fixture documents are fuzzed as well.
OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "fuzz", "corpus")


def write(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def http(method, target, headers=(), body=""):
    lines = [f"{method} {target} HTTP/1.1", "host: localhost"] + [f"{k}: {v}" for k, v in headers]
    return "\r\n".join(lines) + "\r\n\r\n" + body


# --- server_request: the param-styles and errors-formats routers -------------------------------
requests = []
for path, segments in [
    ("/path/simple/flat", "/blue/blue,black,brown/R,100,G,200,B,150"),
    ("/path/simple/explode", "/blue/blue,black,brown/R=100,G=200,B=150"),
    ("/path/label/flat", "/.blue/.blue,black,brown/.R,100,G,200,B,150"),
    ("/path/label/explode", "/.blue/.blue.black.brown/.R=100.G=200.B=150"),
    ("/path/matrix/flat", "/;prim=blue/;list=blue,black,brown/;obj=R,100,G,200,B,150"),
    ("/path/matrix/explode", "/;prim=blue/;list=blue;list=black;list=brown/;R=100;G=200;B=150"),
]:
    requests.append(http("GET", path + segments))
for path, query in [
    ("/query/form/flat", "prim=blue&list=blue,black,brown&obj=R,100,G,200,B,150"),
    ("/query/form/explode", "prim=blue&list=blue&list=black&list=brown&R=100&G=200&B=150"),
    ("/query/spaceDelimited/flat", "list=blue%20black%20brown&obj=R%20100%20G%20200%20B%20150"),
    ("/query/pipeDelimited/flat", "list=blue%7Cblack%7Cbrown&obj=R%7C100%7CG%7C200%7CB%7C150"),
    ("/query/deepObject/explode", "obj%5BR%5D=100&obj%5BG%5D=200&obj%5BB%5D=150"),
    ("/query/reserved", "prim=a/b:c?d&list=x/y,z"),
    ("/query/json", "coords=%7B%22lat%22%3A1.5%2C%22long%22%3A-2.25%7D"),
    ("/query/map", "limit=3&a=1&b=2"),
    ("/query/deepArray", "list%5B0%5D=a&list%5B1%5D=b"),
    ("/query/deepObject/nested", "deep%5Brole%5D=admin&deep%5Bobject%5D%5Bkind%5D=x&outer%5Bpage%5D=2"),
]:
    requests.append(http("GET", f"{path}?{query}"))
requests += [
    http("GET", "/header/flat", [("x-prim", "blue"), ("x-list", "blue,black,brown"), ("x-obj", "R,100,G,200,B,150")]),
    http("GET", "/header/explode", [("x-prim", "blue"), ("x-list", "blue,black,brown"), ("x-obj", "R=100,G=200,B=150")]),
    http("GET", "/cookie/flat", [("cookie", "prim=blue; list=blue,black,brown; obj=R,100,G,200,B,150")]),
    http("GET", "/cookie/explode", [("cookie", "prim=blue; list=blue; list=black; list=brown; R=100; G=200; B=150")]),
    http("POST", "/form", [("content-type", "application/x-www-form-urlencoded")], "name=a+b%26c&tags=x&tags=y&counts=1&counts=2&note=n"),
    http("POST", "/charges", [("content-type", "application/x-www-form-urlencoded")],
         "amount=100&metadata%5Border%5D=7&expand%5B0%5D=customer&shipping%5Bname%5D=Ann&shipping%5Baddress%5D%5Bcity%5D=Oslo&shipping%5Baddress%5D%5Blines%5D%5B0%5D=l1"),
    http("POST", "/created"),
    http("GET", "/default-only"),
    http("GET", "/page"),
    http("DELETE", "/page"),
    http("GET", "/nowhere"),
    http("POST", "/upload", [("content-type", "multipart/form-data; boundary=XyZ")],
         "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nreport\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"count\"\r\n\r\n3\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"tags\"\r\n\r\nb c\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"notes.txt\"\r\nContent-Type: text/plain\r\n\r\nhello, file\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"attachments\"; filename=\"a\"\r\nContent-Type: application/octet-stream\r\n\r\n\x00\x01\r\n"
         "--XyZ\r\nContent-Disposition: form-data; name=\"meta\"\r\nContent-Type: application/json\r\n\r\n{\"source\":\"scanner\"}\r\n"
         "--XyZ--\r\n"),
    http("POST", "/documents", [("content-type", "application/json")],
         json.dumps({"name": "report-1", "source": "https://example.com/a", "mirrors": ["https://m.example.com/"],
                     "checksum": "aGVsbG8=", "thumbnail": None, "tags": {"a": "b"}, "kind": "report", "priority": 2})),
    http("POST", "/documents", [("content-type", "text/plain")], "x"),
    http("GET", "/documents/report-1/content", [("x-checksum", "aGVsbG8=")]),
    http("PUT", "/documents/report-1/content", [("content-type", "application/pdf")], "%PDF-1.4"),
    http("GET", "/documents/report-1/preview"),
    http("PUT", "/documents/report-1/preview", [("content-type", "image/png")], "\x89PNG"),
]
for i, r in enumerate(requests):
    write("server_request", f"seed-{i:02}", r)

# --- style_roundtrip: arbitrary's encoding; a few byte strings are enough to start -------------
for i in range(17):
    write("style_roundtrip", f"seed-{i:02}", bytes([i * 15]) + b"\x00\x00\x00" + b"a,b;c=d.e f|g&h/\xc3\xbc%" + b"\x05x,yp.q" * 3)

# --- Teltonika --------------------------------------------------------------------------------
def crc16(data):
    crc = 0
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0xA001 if crc & 1 else crc >> 1
    return crc

EXAMPLES = [
    "000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF",
    "000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994",
    "000000000000005F10020000016BDBC7833000000000000000000000000000000000000B05040200010000030002000B00270042563A00000000016BDBC7871800000000000000000000000000000000000B05040200010000030002000B00260042563A00000200005FB3",
]
examples = [bytes.fromhex(e) for e in EXAMPLES]


def packet(codec, records):
    data = bytes([codec, len(records)]) + b"".join(records) + bytes([len(records)])
    return b"\0\0\0\0" + struct.pack(">I", len(data)) + data + struct.pack(">I", crc16(data))


def record8(millis, lat, lon, io1=((1, 1), (0x15, 3)), io2=((0x42, 0x5E0F),)):
    gps = struct.pack(">iihHBH", int(lon * 1e7), int(lat * 1e7), 120, 90, 9, 50)
    ios = bytes([len(io1)]) + b"".join(bytes([i, v]) for i, v in io1)
    ios += bytes([len(io2)]) + b"".join(bytes([i]) + struct.pack(">H", v) for i, v in io2)
    ios += b"\0\0"
    total = len(io1) + len(io2)
    return struct.pack(">QB", millis, 1) + gps + bytes([0, total]) + ios


imei = b"\x00\x0f356307042441013"
own = packet(0x08, [record8(1700000000000, 54.6872, 25.2797), record8(1700000001000, -33.9, 18.4)])
miscounted = bytearray(packet(0x08, [record8(1700000000000, 1.5, 2.5)]))
streams = [imei + examples[0], imei + examples[1] + b"\xff" + examples[2], imei + own + own,
           b"\x00\x0f000000000000000" + own, imei + bytes(miscounted)]
for i, e in enumerate(examples + [own]):
    write("teltonika_decoder", f"packet-{i}", b"\x00" + e)
    write("teltonika_decoder", f"packet-{i}-crc", b"\x01" + e)
write("teltonika_decoder", "imei", b"\x00" + imei)
for i, s in enumerate(streams):
    write("teltonika_listener", f"whole-{i}", b"\x00" + s)
    write("teltonika_listener", f"cut-{i}", b"\x83" + struct.pack(">HHH", 1, 17, 40) + s)

# --- osmand -----------------------------------------------------------------------------------
osmand = [
    http("GET", "/?id=123456&timestamp=1700000000&lat=54.6872&lon=25.2797&speed=12.5&bearing=90&altitude=120&accuracy=5&batt=80&ignition=true&motion=false&alarm=sos&power=12.6&battery=3.9"),
    http("POST", "/?deviceid=123456&timestamp=2023-11-14T22:13:20Z&location=54.6,25.2&hdop=1.2"),
    http("POST", "/", [("content-type", "application/x-www-form-urlencoded")], "id=123456&timestamp=1700000000000&lat=1&lon=2"),
    http("POST", "/", [("content-type", "application/x-www-form-urlencoded")], "id=123456&timestamp=2023-11-14%2022%3A13%3A20&lat=1&lon=2&heading=10"),
    http("POST", "/", [("content-type", "application/json")], json.dumps({
        "device_id": "123456", "location": {"timestamp": "2023-11-14T22:13:20.000Z",
        "coords": {"latitude": 54.6, "longitude": 25.2, "speed": 3.2, "heading": 90, "altitude": 100, "accuracy": 4},
        "is_moving": True, "event": "motionchange", "battery": {"level": 0.8, "is_charging": False},
        "activity": {"type": "still"}, "extras": {}}})),
    http("GET", "/?id=unknown&lat=1&lon=2"),
    http("GET", "/"),
]
for i, r in enumerate(osmand):
    write("osmand", f"seed-{i}", r)

# --- generator: the fixture documents as text, and as mutation seeds --------------------------
small = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "fixtures", "*.yaml")) if os.path.getsize(p) < 12000)
for p in small:
    name = os.path.splitext(os.path.basename(p))[0]
    text = open(p, "rb").read()
    write("generator", f"{name}", b"\x00" + text)
    write("generator", f"{name}-mutated", b"\x01\x08\x00" + bytes([0, 1, 2, 3, 4, 5, 6, 7]) + text)
