import struct, sys
# 16x16 flat CMYK baseline JPEG (Adobe APP14, transform 0), all coefficients zero.
def seg(m, d): return b"\xff" + bytes([m]) + struct.pack(">H", len(d) + 2) + d
w = h = 16; nc = 4
out = b"\xff\xd8"
out += seg(0xEE, b"Adobe" + struct.pack(">HHHB", 100, 0, 0, 0))
out += seg(0xDB, b"\x00" + bytes([1] * 64))
sof = struct.pack(">BHHB", 8, h, w, nc) + b"".join(bytes([i + 1, 0x11, 0]) for i in range(nc))
out += seg(0xC0, sof)
one = bytes([1] + [0] * 15) + b"\x00"
out += seg(0xC4, b"\x00" + one)   # DC table 0: one code '0' -> category 0
out += seg(0xC4, b"\x10" + one)   # AC table 0: one code '0' -> EOB
out += seg(0xDA, bytes([nc]) + b"".join(bytes([i + 1, 0x00]) for i in range(nc)) + b"\x00\x3f\x00")
blocks = (w // 8) * (h // 8) * nc; bits = "00" * blocks
bits += "1" * (-len(bits) % 8)
data = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8)).replace(b"\xff", b"\xff\x00")
out += data + b"\xff\xd9"
open(sys.argv[1], "wb").write(out)
