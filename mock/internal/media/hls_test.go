package media

import (
	"bytes"
	"strings"
	"testing"
)

// The transport stream is well formed: PAT and PMT with their CRCs, then
// one PES packet per frame with timestamps 1/10 s apart that run on from
// the previous segment, each starting with an access unit delimiter; the
// first frame of a segment is an IDR picture with SPS and PPS.
func TestHLSSegmentStructure(t *testing.T) {
	for _, tc := range []struct{ secs, seg, frames int }{{21, 0, 100}, {21, 1, 100}, {21, 2, 10}, {5, 0, 50}} {
		b := hlsSegment(tc.secs, tc.seg)
		if len(b)%tsPacket != 0 {
			t.Fatalf("segment %d of %d s: %d bytes, not whole packets", tc.seg, tc.secs, len(b))
		}
		pes := map[int][]byte{}
		var frames [][]byte
		cc := map[int]int{}
		for off := 0; off < len(b); off += tsPacket {
			p := b[off : off+tsPacket]
			pid := int(p[1]&0x1F)<<8 | int(p[2])
			pusi := p[1]&0x40 != 0
			if c, seen := cc[pid]; seen && int(p[3]&0x0F) != (c+1)&0x0F {
				t.Fatalf("pid %#x: continuity counter jumps", pid)
			}
			cc[pid] = int(p[3] & 0x0F)
			payload := p[4:]
			if p[3]&0x20 != 0 {
				payload = p[5+int(p[4]):]
			}
			switch pid {
			case 0, pidPMT:
				section := payload[1:]
				n := 3 + (int(section[1]&0x0F)<<8 | int(section[2]))
				if crc32MPEG(section[:n]) != 0 { // a section with its CRC checks to 0
					t.Errorf("pid %#x: bad CRC", pid)
				}
			case pidVideo:
				if pusi && pes[pid] != nil {
					frames = append(frames, pes[pid])
					pes[pid] = nil
				}
				pes[pid] = append(pes[pid], payload...)
			default:
				t.Fatalf("unexpected pid %#x", pid)
			}
		}
		frames = append(frames, pes[pidVideo])
		if len(frames) != tc.frames {
			t.Fatalf("segment %d of %d s: %d frames, want %d", tc.seg, tc.secs, len(frames), tc.frames)
		}
		for k, f := range frames {
			if !bytes.HasPrefix(f, []byte{0, 0, 1, 0xE0}) {
				t.Fatalf("frame %d: not a video PES packet", k)
			}
			pts := int64(f[9]&0x0E)<<29 | int64(f[10])<<22 | int64(f[11]&0xFE)<<14 | int64(f[12])<<7 | int64(f[13])>>1
			if want := int64(ptsStart + (tc.seg*segmentSecs*videoFPS+k)*ptsPerFrame); pts != want {
				t.Fatalf("frame %d: PTS %d, want %d", k, pts, want)
			}
			es := f[9+int(f[8]):]
			var types []byte
			for _, nal := range bytes.Split(es, []byte{0, 0, 0, 1})[1:] {
				types = append(types, nal[0]&0x1F)
			}
			want := []byte{9, 1}
			if k == 0 {
				want = []byte{9, 7, 8, 5}
			}
			if !bytes.Equal(types, want) {
				t.Fatalf("frame %d: NAL unit types %v, want %v", k, types, want)
			}
		}
	}
}

func TestHLSPlaylist(t *testing.T) {
	want := "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n" +
		"#EXTINF:10.000,\n0.ts\n#EXTINF:10.000,\n1.ts\n#EXTINF:1.000,\n2.ts\n#EXT-X-ENDLIST\n"
	if got := string(hlsPlaylist(21)); got != want {
		t.Errorf("playlist of 21 s:\n%s\nwant\n%s", got, want)
	}
	if got := string(hlsPlaylist(10)); strings.Count(got, "#EXTINF:10.000,") != 1 || strings.Contains(got, "1.ts") {
		t.Errorf("playlist of 10 s:\n%s", got)
	}
}

func BenchmarkRenderMedia(b *testing.B) {
	for _, bc := range []struct {
		name string
		it   item
	}{
		{"photo-fs", item{kind: kindPhoto, key: "Ij2V5jHW3HW1YCswao90", n: 1, size: "fs"}},
		{"photo-ms", item{kind: kindPhoto, key: "Ij2V5jHW3HW1YCswao90", n: 1, size: "ms"}},
		{"preview", item{kind: kindPreview, key: "06e5accc-172b-4144-9273-d57f4c39ddd2"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				render(bc.it)
			}
		})
	}
	b.Run("playlist", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hlsPlaylist(90)
		}
	})
	b.Run("segment", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			hlsSegment(90, 3)
		}
	})
}
