// The rich-text editor's images: a plain image (<img src alt>) and an image with a caption
// (<figure><img src alt><figcaption>…</figcaption></figure>). Both keep the stored path
// (/streams/download/…) in the HTML and show the file through the session, since a draft's file
// is not public. The caption is plain text, edited in the image dialog (not inline), as the
// image's own caption is.
import { Node } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import { fileObjectUrl } from '../../api/client';

/** An <img> that shows `src` through the session when it is a server path; `update` keeps it current. */
function sessionImage() {
  const img = document.createElement('img');
  let shown = '';
  const show = (src: string, alt: string) => {
    img.alt = alt;
    if (src === shown) return;
    shown = src;
    if (src.startsWith('/')) fileObjectUrl(src).then((u) => (img.src = u), () => (img.src = src));
    else img.src = src;
  };
  return { img, show };
}

/** A node as these views read it. */
type ImageNode = { type: { name: string }; attrs: Record<string, unknown> };

const attrString = (node: ImageNode, name: string) => String(node.attrs[name] ?? '');

export const SessionImage = Image.extend({
  addNodeView() {
    return ({ node }) => {
      const { img, show } = sessionImage();
      show(attrString(node, 'src'), attrString(node, 'alt'));
      return {
        dom: img,
        update: (n) => {
          if (n.type.name !== this.name) return false;
          show(attrString(n, 'src'), attrString(n, 'alt'));
          return true;
        },
      };
    };
  },
});

export const FIGURE = 'imageFigure';

/** An image with its caption, one block the editor selects, moves and deletes whole. */
export const ImageFigure = Node.create({
  name: FIGURE,
  group: 'block',
  atom: true,
  draggable: true,
  selectable: true,
  addAttributes() {
    return {
      src: { default: null },
      alt: { default: '' },
      caption: { default: '' },
    };
  },
  parseHTML() {
    return [
      {
        tag: 'figure',
        // A figure without an image is not ours (its text is kept by the other rules).
        getAttrs: (el) => {
          const img = (el as HTMLElement).querySelector('img');
          if (!img?.getAttribute('src')) return false;
          return { src: img.getAttribute('src'), alt: img.getAttribute('alt') ?? '', caption: ((el as HTMLElement).querySelector('figcaption')?.textContent ?? '').trim() };
        },
      },
    ];
  },
  renderHTML({ node }) {
    const img = ['img', { src: node.attrs.src, alt: node.attrs.alt ?? '' }];
    return node.attrs.caption ? ['figure', {}, img, ['figcaption', {}, node.attrs.caption]] : ['figure', {}, img];
  },
  addNodeView() {
    return ({ node }) => {
      const dom = document.createElement('figure');
      const { img, show } = sessionImage();
      const caption = document.createElement('figcaption');
      dom.append(img, caption);
      const render = (n: ImageNode) => {
        show(attrString(n, 'src'), attrString(n, 'alt'));
        caption.textContent = attrString(n, 'caption');
        caption.hidden = !caption.textContent;
      };
      render(node);
      return {
        dom,
        update: (n) => {
          if (n.type.name !== FIGURE) return false;
          render(n);
          return true;
        },
      };
    };
  },
});
