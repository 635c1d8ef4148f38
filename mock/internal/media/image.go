package media

import (
	"bytes"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"strconv"
)

// Sizes of the placeholder images, in pixels: marketplace photos are
// portrait (3:4), video previews 16:9.
var (
	photoFull    = image.Pt(450, 600)
	photoMini    = image.Pt(90, 120)
	videoPreview = image.Pt(640, 360)
)

// jpegQuality keeps a full-size photo near 11 KB.
const jpegQuality = 80

// render draws the JPEG of a photo or a video preview: a still life
// of one object on a surface, its colours and shape chosen by the path's
// key and number, so the photos of a review differ and a miniature shows
// the same picture as its full size. A photo carries its number in a
// badge; a preview carries a play button. Only integer arithmetic goes
// into the pixels, so the bytes are the same on every machine.
func render(it item) []byte {
	h := fnv.New64a()
	h.Write([]byte(it.key))
	size := videoPreview
	if it.kind == kindPhoto {
		h.Write([]byte("/" + strconv.Itoa(it.n)))
		size = photoFull
		if it.size == "ms" {
			size = photoMini
		}
	}
	c := newCanvas(size.X, size.Y)
	c.scene(h.Sum64())
	if it.kind == kindPhoto {
		c.badge(it.n)
	} else {
		c.playButton()
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, c.img, &jpeg.Options{Quality: jpegQuality}); err != nil {
		panic(err) // encoding to memory fails only on a bug
	}
	return buf.Bytes()
}

// rgb is a colour as it is drawn: its luma and chroma (YCbCr), which the
// JPEG encoder takes as they are. Mixing two colours there gives the
// mix of their RGB values, within rounding.
type rgb struct{ y, cb, cr int }

func rgbColor(r, g, b int) rgb {
	y, cb, cr := color.RGBToYCbCr(uint8(r), uint8(g), uint8(b))
	return rgb{int(y), int(cb), int(cr)}
}

func hexColor(v uint32) rgb { return rgbColor(int(v>>16&0xff), int(v>>8&0xff), int(v&0xff)) }

// scaled is c darker: k out of 256 of its RGB values.
func (c rgb) scaled(k int) rgb {
	r, g, b := color.YCbCrToRGB(uint8(c.y), uint8(c.cb), uint8(c.cr))
	return rgbColor(int(r)*k/256, int(g)*k/256, int(b)*k/256)
}

var (
	white  = rgbColor(255, 255, 255)
	black  = rgbColor(0, 0, 0)
	shadow = black
	ink    = rgbColor(40, 40, 40)
	badgeC = rgbColor(20, 20, 20)
)

// palette is a scene's colours: a backdrop fading from top to bottom, the
// surface the object stands on, the object and its pattern.
type palette struct{ top, bottom, surface, object, accent rgb }

var palettes = func() []palette {
	raw := [][5]uint32{
		{0xF3E9DC, 0xE6D5C3, 0xC8A987, 0x3F6E8C, 0xF2F2F2},
		{0xE8F0F2, 0xD3E2E7, 0x9FB4BD, 0xD9735B, 0xFFFFFF},
		{0xF6EEF3, 0xE9D8E4, 0xB89AAE, 0x5B7F5E, 0xF4E3B1},
		{0xEEF2E6, 0xDCE5CF, 0xA3B18A, 0x8A4F7D, 0xF0E6D2},
		{0xFFF4E0, 0xF5E1BD, 0xD9B26F, 0x2F4858, 0xF6AE2D},
		{0xEAEAEA, 0xD6D6D6, 0xA6A6A6, 0xC0392B, 0xECF0F1},
		{0xE9F5EE, 0xD2EBDD, 0x8FBFA4, 0x2E86AB, 0xF4F1DE},
		{0xF1ECF7, 0xDED4EE, 0xA897C8, 0xE07A5F, 0xFDF6EC},
	}
	ps := make([]palette, len(raw))
	for i, r := range raw {
		ps[i] = palette{hexColor(r[0]), hexColor(r[1]), hexColor(r[2]), hexColor(r[3]), hexColor(r[4])}
	}
	return ps
}()

// canvas draws on a YCbCr image without chroma subsampling, with
// coverage-based antialiasing. Coordinates of shapes are in eighths of a
// pixel.
type canvas struct {
	img  *image.YCbCr
	w, h int
}

func newCanvas(w, h int) *canvas {
	return &canvas{img: image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio444), w: w, h: h}
}

// blend mixes col into pixel (x, y) with weight a out of 4096.
func (c *canvas) blend(x, y int, col rgb, a int) {
	i := y*c.w + x // the three planes have the same layout
	m := c.img
	m.Y[i] = uint8(int(m.Y[i]) + (col.y-int(m.Y[i]))*a/4096)
	m.Cb[i] = uint8(int(m.Cb[i]) + (col.cb-int(m.Cb[i]))*a/4096)
	m.Cr[i] = uint8(int(m.Cr[i]) + (col.cr-int(m.Cr[i]))*a/4096)
}

// row paints row y in col.
func (c *canvas) row(y int, col rgb) {
	m, i := c.img, y*c.w
	for _, p := range [3]struct {
		plane []byte
		v     int
	}{{m.Y, col.y}, {m.Cb, col.cb}, {m.Cr, col.cr}} {
		r := p.plane[i : i+c.w]
		for x := range r {
			r[x] = uint8(p.v)
		}
	}
}

// fill paints the convex shape inside (in eighths of a pixel) within the
// pixel box [x0,x1)×[y0,y1), with opacity alpha out of 256. Each row is
// scanned from both ends to its first fully covered pixels; the shape
// being convex, the pixels between those are covered too.
func (c *canvas) fill(x0, y0, x1, y1 int, col rgb, alpha int, inside func(x8, y8 int) bool) {
	x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, c.w), min(y1, c.h)
	for y := y0; y < y1; y++ {
		left, right := -1, -1 // the row's first and last fully covered pixels
		for x := x0; x < x1 && left < 0; x++ {
			if cov := coverage(x, y, inside); cov == 16 {
				left = x
			} else if cov > 0 {
				c.blend(x, y, col, alpha*cov)
			}
		}
		if left < 0 {
			continue
		}
		for x := x1 - 1; x > left && right < 0; x-- {
			if cov := coverage(x, y, inside); cov == 16 {
				right = x
			} else if cov > 0 {
				c.blend(x, y, col, alpha*cov)
			}
		}
		for x := left; x <= max(left, right); x++ {
			c.blend(x, y, col, alpha*16)
		}
	}
}

// coverage is how much of pixel (x, y) is inside, out of 16. A pixel
// whose four corners are all inside is covered; all outside, not (the
// shapes are much bigger than a pixel); else it is sampled 4×4 times.
func coverage(x, y int, inside func(x8, y8 int) bool) int {
	n := 0
	for _, d := range [4][2]int{{0, 0}, {8, 0}, {0, 8}, {8, 8}} {
		if inside(8*x+d[0], 8*y+d[1]) {
			n++
		}
	}
	switch n {
	case 0:
		return 0
	case 4:
		return 16
	}
	cov := 0
	for sy := 1; sy < 8; sy += 2 {
		for sx := 1; sx < 8; sx += 2 {
			if inside(8*x+sx, 8*y+sy) {
				cov++
			}
		}
	}
	return cov
}

// ellipse paints an ellipse centred at (cx, cy) with radii rx, ry, in pixels.
func (c *canvas) ellipse(cx, cy, rx, ry int, col rgb, alpha int) {
	rx8, ry8 := int64(8*rx), int64(8*ry)
	lim := rx8 * rx8 * ry8 * ry8
	c.fill(cx-rx-1, cy-ry-1, cx+rx+2, cy+ry+2, col, alpha, func(x8, y8 int) bool {
		dx, dy := int64(x8-8*cx), int64(y8-8*cy)
		return dx*dx*ry8*ry8+dy*dy*rx8*rx8 <= lim
	})
}

// roundRect paints the box [x0,x1)×[y0,y1) with corners of radius r.
func (c *canvas) roundRect(x0, y0, x1, y1, r int, col rgb, alpha int) {
	r8 := 8 * r
	c.fill(x0, y0, x1, y1, col, alpha, func(x8, y8 int) bool {
		if x8 < 8*x0 || x8 > 8*x1 || y8 < 8*y0 || y8 > 8*y1 {
			return false
		}
		// The nearest point of the box shrunk by r: within r of it is inside.
		nx := min(max(x8, 8*x0+r8), 8*x1-r8)
		ny := min(max(y8, 8*y0+r8), 8*y1-r8)
		dx, dy := x8-nx, y8-ny
		return dx*dx+dy*dy <= r8*r8
	})
}

// triangle paints the triangle a, b, c (clockwise on screen), in pixels.
func (c *canvas) triangle(a, b, d image.Point, col rgb, alpha int) {
	edge := func(p, q image.Point, x8, y8 int) int {
		return (8*q.X-8*p.X)*(y8-8*p.Y) - (8*q.Y-8*p.Y)*(x8-8*p.X)
	}
	x0, y0 := min(a.X, b.X, d.X), min(a.Y, b.Y, d.Y)
	x1, y1 := max(a.X, b.X, d.X)+1, max(a.Y, b.Y, d.Y)+1
	c.fill(x0, y0, x1, y1, col, alpha, func(x8, y8 int) bool {
		return edge(a, b, x8, y8) >= 0 && edge(b, d, x8, y8) >= 0 && edge(d, a, x8, y8) >= 0
	})
}

// scene paints the backdrop, the surface, and one object with its shadow.
func (c *canvas) scene(seed uint64) {
	pick := func(n int) int { // the next choice from the seed
		v := int(seed % uint64(n))
		seed /= uint64(n)
		return v
	}
	p := palettes[pick(len(palettes))]
	horizon := c.h * (58 + pick(10)) / 100
	for y := range c.h {
		if y < horizon {
			c.row(y, rgb{
				p.top.y + (p.bottom.y-p.top.y)*y/horizon,
				p.top.cb + (p.bottom.cb-p.top.cb)*y/horizon,
				p.top.cr + (p.bottom.cr-p.top.cr)*y/horizon,
			})
		} else {
			// The surface darkens towards the viewer.
			c.row(y, p.surface.scaled(256-48*(y-horizon)/max(c.h-horizon, 1)))
		}
	}
	unit := min(c.w, c.h) // sizes scale with the picture
	cx := c.w/2 + (pick(21)-10)*unit/100
	switch pick(3) {
	case 0: // a bowl seen from above the edge
		r := unit * (26 + pick(8)) / 100
		c.ellipse(cx, horizon+r/3, r*11/10, r/4, shadow, 60)
		c.ellipse(cx, horizon-r/2, r, r, p.object, 256)
		c.ellipse(cx, horizon-r/2, r*6/10, r*6/10, p.accent, 200)
	case 1: // a folded textile, striped
		w, h := unit*(50+pick(12))/100, unit*(24+pick(8))/100
		x0, y0 := cx-w/2, horizon-h+h/5
		c.ellipse(cx, y0+h, w*6/10, h/6, shadow, 60)
		c.roundRect(x0, y0, x0+w, y0+h, unit/30+1, p.object, 256)
		stripe := max(h/7, 1)
		for y := y0 + stripe; y+stripe <= y0+h-stripe; y += 2 * stripe {
			c.roundRect(x0, y, x0+w, y+stripe, 0, p.accent, 90)
		}
	default: // a bottle or vase
		w, h := unit*(18+pick(8))/100, unit*(50+pick(12))/100
		x0, y0 := cx-w/2, horizon-h+h/6
		c.ellipse(cx, y0+h, w*7/10, h/14, shadow, 60)
		c.roundRect(x0, y0+h/4, x0+w, y0+h, w/4, p.object, 256)
		c.roundRect(cx-w/5, y0, cx+w/5, y0+h/4+w/4, w/12+1, p.object, 256)
		c.roundRect(x0+w/6, y0+h/2, x0+w-w/6, y0+h*3/4, w/10+1, p.accent, 220)
	}
}

// digits is a 3×5 pixel font of the ten digits, a row of 3 bits each.
var digits = [10][5]uint8{
	{7, 5, 5, 5, 7}, {2, 6, 2, 2, 7}, {7, 1, 7, 4, 7}, {7, 1, 7, 1, 7}, {5, 5, 7, 1, 1},
	{7, 4, 7, 1, 7}, {7, 4, 7, 5, 7}, {7, 1, 2, 2, 2}, {7, 5, 7, 5, 7}, {7, 5, 7, 1, 7},
}

// badge writes the photo's number in the top left corner.
func (c *canvas) badge(n int) {
	s := max(c.h/100, 2) // the size of a font pixel
	text := strconv.Itoa(n)
	pad := 2 * s
	w := len(text)*4*s - s + 2*pad
	c.roundRect(pad, pad, pad+w, pad+5*s+2*pad, s, badgeC, 150)
	for i, ch := range text {
		for row, bits := range digits[ch-'0'] {
			for col := range 3 {
				if bits&(4>>col) != 0 {
					x, y := 2*pad+(4*i+col)*s, 2*pad+row*s
					c.roundRect(x, y, x+s, y+s, 0, white, 256)
				}
			}
		}
	}
}

// playButton paints a round play button in the middle.
func (c *canvas) playButton() {
	cx, cy, r := c.w/2, c.h/2, min(c.w, c.h)/7
	c.ellipse(cx, cy, r, r, white, 220)
	c.triangle(image.Pt(cx-r/3, cy-r/2), image.Pt(cx+r/2, cy), image.Pt(cx-r/3, cy+r/2), ink, 256)
}
