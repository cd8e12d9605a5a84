import { mount } from 'svelte';
import App from './App.svelte';
import EmbedApp from './lib/components/EmbedApp.svelte';
import { isEmbedPath } from './lib/share/link';
import './app.css';

// `/embed/<share id>` is the chrome-less view a course page puts in an iframe.
const Root = isEmbedPath(location.pathname) ? EmbedApp : App;
export default mount(Root, { target: document.getElementById('app')! });
