/**
 * Refreshes the README images from the screenshots the code-server e2e tests just took
 * (`npm run test:e2e` writes them to test/.tmp/e2e-screenshots), so the images a reader sees are
 * the product as it is: `npm run readme-images`. Fails, naming it, when a screenshot is missing.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const shots = path.join(root, 'test', '.tmp', 'e2e-screenshots');
/** README image ← the screenshot it is taken from. */
const IMAGES = {
  // The developer README: the room in the sidebar beside the digest review (light theme).
  'docs/images/room-and-digest.png': 'review-pending-light.png',
  // The Extensions page (MARKETPLACE.md, inside the vsix).
  'media/readme-review.png': 'review-pending-light.png',
  'media/readme-decided.png': 'review-decided-dark.png',
};

const missing = Object.values(IMAGES).filter((shot) => !existsSync(path.join(shots, shot)));
if (missing.length) {
  console.error(`readme-images: no ${missing.join(', ')} in ${shots}: run \`npm run test:e2e\` first.`);
  process.exit(1);
}
/** The images ship in the .vsix (at most 2.5 MB): quantized to a palette where pngquant is installed. */
function quantize(file) {
  try {
    execFileSync('pngquant', ['--quality', '70-90', '--speed', '1', '--force', '--output', file, file]);
    return ' (pngquant)';
  } catch {
    return ' (not quantized: apt-get install pngquant to make it about three times smaller)';
  }
}
for (const [image, shot] of Object.entries(IMAGES)) {
  copyFileSync(path.join(shots, shot), path.join(root, image));
  console.log(`${image} <- ${shot}${quantize(path.join(root, image))}`);
}
