// Draws Folio's icons with sharp from one SVG and writes them to resources/ (committed; run again
// only to change the design): icon.png (1024, electron-builder makes .icns/.ico from it),
// icons/<n>x<n>.png for Linux, tray.png for the tray and trayTemplate(@2x).png for the macOS menu bar.
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { root } from './electron-setup.mjs';

// A page with a folded corner and text lines, on a rounded square.
const page = (ink, paper) => `
  <path d="M300 200 H620 L760 340 V824 H300 Z" fill="${paper}"/>
  <path d="M620 200 V340 H760 Z" fill="${ink}" opacity="0.35"/>
  <rect x="370" y="430" width="320" height="44" rx="22" fill="${ink}"/>
  <rect x="370" y="540" width="320" height="44" rx="22" fill="${ink}"/>
  <rect x="370" y="650" width="220" height="44" rx="22" fill="${ink}"/>`;

const appIcon = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="0 0 1024 1024">
  <rect x="64" y="64" width="896" height="896" rx="200" fill="#2f5d8a"/>
  ${page('#2f5d8a', '#ffffff')}
</svg>`;

// Menu-bar icons: the page alone, black on transparent (macOS tints "Template" images itself).
const trayIcon = (colour) => `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024" viewBox="160 120 740 784">
  <path d="M300 200 H620 L760 340 V824 H300 Z M370 430 v44 h320 v-44 Z M370 540 v44 h320 v-44 Z M370 650 v44 h220 v-44 Z" fill="${colour}" fill-rule="evenodd"/>
</svg>`;

const out = path.join(root, 'resources');
fs.mkdirSync(path.join(out, 'icons'), { recursive: true });
const render = (svg, size, file) => sharp(Buffer.from(svg)).resize(size, size).png({ compressionLevel: 9 }).toFile(path.join(out, file));

await render(appIcon, 1024, 'icon.png');
for (const size of [16, 32, 48, 64, 128, 256, 512]) await render(appIcon, size, path.join('icons', `${size}x${size}.png`));
await render(trayIcon('#2f5d8a'), 32, 'tray.png');
await render(trayIcon('#000000'), 16, 'trayTemplate.png');
await render(trayIcon('#000000'), 32, 'trayTemplate@2x.png');
console.log(`icons written to ${out}`);
