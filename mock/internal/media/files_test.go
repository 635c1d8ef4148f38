package media

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"testing"
)

func TestPlaylist(t *testing.T) {
	want := "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n" +
		"#EXTINF:10.000,\n0.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:10.000,\n1.ts\n#EXT-X-DISCONTINUITY\n#EXTINF:1.000,\n2.ts\n#EXT-X-ENDLIST\n"
	if got := string(playlist(21)); got != want {
		t.Errorf("playlist of 21 s:\n%s\nwant\n%s", got, want)
	}
}

// A segment cut to d seconds is whole transport packets holding d×10
// frames, the first an IDR picture with its parameter sets.
func TestSegmentCut(t *testing.T) {
	for secs := 1; secs <= segmentSecs; secs++ {
		b := files().segments[secs].body
		frames := 0
		for off := 0; off < len(b); off += tsPacket {
			p := b[off:min(off+tsPacket, len(b))]
			if len(p) != tsPacket || p[0] != 0x47 {
				t.Fatalf("%d s: the packet at %d is not a transport packet", secs, off)
			}
			if int(p[1]&0x1F)<<8|int(p[2]) == pidVideo && p[1]&0x40 != 0 {
				frames++
			}
		}
		if frames != secs*segmentFPS {
			t.Errorf("%d s: %d frames, want %d", secs, frames, secs*segmentFPS)
		}
		if !bytes.Contains(b, []byte{0, 0, 0, 1, 0x67}) || !bytes.Contains(b, []byte{0, 0, 0, 1, 0x65}) {
			t.Errorf("%d s: no SPS or IDR picture", secs)
		}
	}
}

// Every embedded picture is a JPEG of its size, and a miniature is its
// photo smaller: the mean colours of a 3×4 grid of cells agree.
func TestPictures(t *testing.T) {
	decode := func(f file, size image.Point) image.Image {
		m, err := jpeg.Decode(bytes.NewReader(f.body))
		if err != nil || m.Bounds().Size() != size {
			t.Fatalf("a picture of %d bytes: %v, want a JPEG of %v (%v)", len(f.body), m.Bounds().Size(), size, err)
		}
		return m
	}
	for _, f := range files().previews {
		decode(f, image.Pt(640, 360))
	}
	cells := func(m image.Image) (means []int) {
		w, h := m.Bounds().Dx()/3, m.Bounds().Dy()/4
		for cy := range 4 {
			for cx := range 3 {
				var sum [3]int
				for y := cy * h; y < (cy+1)*h; y++ {
					for x := cx * w; x < (cx+1)*w; x++ {
						r, g, b, _ := m.At(x, y).RGBA()
						sum[0], sum[1], sum[2] = sum[0]+int(r>>8), sum[1]+int(g>>8), sum[2]+int(b>>8)
					}
				}
				for _, s := range sum {
					means = append(means, s/(w*h))
				}
			}
		}
		return means
	}
	seen := map[string]bool{}
	for i := range photoFiles {
		full := cells(decode(files().photos[i], image.Pt(450, 600)))
		mini := cells(decode(files().minis[i], image.Pt(90, 120)))
		for k := range full {
			if d := full[k] - mini[k]; d < -8 || d > 8 {
				t.Errorf("photo %d: cell %d's mean colour is %d in the photo, %d in its miniature", i, k/3, full[k], mini[k])
			}
		}
		seen[fmt.Sprint(full)] = true
	}
	if len(seen) != photoFiles {
		t.Errorf("%d different photos among %d", len(seen), photoFiles)
	}
}

// The photos of a review differ.
func TestPick(t *testing.T) {
	picked := map[int]bool{}
	for n := 1; n <= photoFiles; n++ {
		picked[pick("Ij2V5jHW3HW1YCswao90", n, photoFiles)] = true
	}
	if len(picked) != photoFiles {
		t.Errorf("%d photos of a review pick %d pictures", photoFiles, len(picked))
	}
}
