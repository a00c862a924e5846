#!/usr/bin/env bash
# Draws the add-on store's pictures, addon/icon.png (128 x 128) and addon/logo.png (250 x 100): the camera of
# icons/nvr2mqtt-camera.svg, white on a rounded blue square, and beside it the name in the logo.
# Needs rsvg-convert (Debian: librsvg2-bin) and a sans-serif font. The PNGs are committed; run this after a
# change to the drawing.
set -euo pipefail
cd "$(dirname "$0")/.."
mark='<rect x="4" y="4" width="120" height="120" rx="24" fill="#1f6feb"/>
  <g transform="translate(14 -6) scale(2.5)" fill="none" stroke="#fff" stroke-width="3" stroke-linejoin="round" stroke-linecap="round">
    <rect x="5" y="20" width="22" height="14" rx="2"/>
    <path d="M27 24l8-4v14l-8-4z"/>
    <path d="M14 34v8M8 44h12"/>
  </g>'
rsvg-convert -w 128 -h 128 -o addon/icon.png <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">
  $mark
</svg>
SVG
rsvg-convert -w 250 -h 100 -o addon/logo.png <<SVG
<svg xmlns="http://www.w3.org/2000/svg" width="250" height="100" viewBox="0 0 250 100">
  <g transform="translate(6 14) scale(0.5625)">$mark</g>
  <text x="86" y="60" font-family="DejaVu Sans, sans-serif" font-weight="bold" font-size="30" fill="#1f6feb">nvr2mqtt</text>
</svg>
SVG
